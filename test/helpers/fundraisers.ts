import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/knex';
import type { FundraiserRow as StoredFundraiser } from '../../src/modules/fundraisers/fundraisers.repo';

/** A stored row; tests may also read columns later migrations add. */
export type FundraiserRow = StoredFundraiser & { [extra: string]: unknown };

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
