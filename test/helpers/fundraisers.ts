import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/knex';

/** A fundraisers row as stored (column names of the fundraisers table). */
export interface FundraiserRow {
  id: string;
  owner_user_id: string;
  org_id: string | null;
  title: string;
  slug: string;
  summary: string | null;
  story_html: string | null;
  goal_amount_cents: number;
  currency: string;
  status: 'draft' | 'pending' | 'active' | 'paused' | 'ended' | 'rejected';
  visibility: 'public' | 'unlisted' | 'private';
  type: 'personal' | 'for_others' | 'charity';
  is_project: boolean;
  category_id: number | null;
  tags: string[] | null;
  cover_image: string | null;
  cover_image_focal_x: number | null;
  cover_image_focal_y: number | null;
  images: string[] | null;
  video_url: string | null;
  location: string | null;
  location_lat: number | null;
  location_lng: number | null;
  location_label: string | null;
  beneficiary_name: string | null;
  beneficiary_contact: string | null;
  source_language: string;
  end_date: string | Date | null;
  approved_at: Date | null;
  goal_reached_at: Date | null;
  cover_tint: string | null;
  raised_cents: number;
  donor_count: number;
  donation_count: number;
  shares_count: number;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  [extra: string]: unknown;
}

/**
 * Inserts a fundraiser row directly (for tests that are not about creation). Defaults to a live,
 * public campaign with a unique title and slug; any column can be overridden.
 */
export async function createFundraiser(
  db: Db,
  ownerId: string,
  overrides: Partial<FundraiserRow> = {},
): Promise<FundraiserRow> {
  const tag = randomUUID().slice(0, 8);
  const status = overrides.status ?? 'active';
  const [row] = await db('fundraisers')
    .insert({
      owner_user_id: ownerId,
      title: `Test campaign ${tag}`,
      slug: `test-campaign-${tag}`,
      summary: 'A test campaign',
      story_html: '<p>A story long enough to read.</p>',
      goal_amount_cents: 100_000,
      currency: 'USD',
      status,
      visibility: 'public',
      type: 'personal',
      cover_image: 'https://img.example.test/cover.jpg',
      approved_at: status === 'active' || status === 'paused' || status === 'ended' ? db.fn.now() : null,
      ...overrides,
    })
    .returning('*');
  return row as FundraiserRow;
}
