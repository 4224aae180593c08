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
  // Counters given here are what reads show: the campaign's shard rows hold them (the row's columns are only the ranking copy).
  const counters = { raised_cents: 0, tips_cents: 0, donation_count: 0, donor_count: 0 };
  let any = false;
  for (const k of Object.keys(counters) as Array<keyof typeof counters>) {
    if (overrides[k] !== undefined) {
      counters[k] = Number(overrides[k]);
      any = true;
    }
  }
  if (any) await db('fundraiser_counter_shards').insert({ fundraiser_id: row.id, shard: 0, ...counters });
  return row as FundraiserRow;
}
