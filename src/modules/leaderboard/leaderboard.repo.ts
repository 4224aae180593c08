import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { Period } from './leaderboard.periods';
import { RANKED_SUBJECTS } from './leaderboard.reads';

type Q = Db | Knex.Transaction;

export { AUDIENCES, PERIODS, type Audience, type Period } from './leaderboard.periods';

const DAYS: Record<Period, number | null> = { all: null, '30d': 30, '7d': 7 };

/**
 * Rebuilds one period's ranking in `trx`: every subject with a positive figure, ranked per
 * audience (all, creators and ambassadors on impact; donors on given), ties by key. Subjects are
 * active accounts with public profiles (raised = settled gifts to their live campaigns, given =
 * their settled gifts that were not anonymous, driven = what their referral links drove) and one
 * alias per anonymous giver (every anonymous gift of one account, address or guest gift), keyed
 * by the same HMAC as its donor page and never named. The subjects and their ranks come from
 * RANKED_SUBJECTS (leaderboard.reads.ts); this statement writes them.
 */
export async function rebuildPeriod(trx: Knex.Transaction, period: Period, driven: Map<string, number>): Promise<void> {
  const days = DAYS[period];
  await trx('leaderboard_entries').where({ period }).del();
  await trx.raw(
    `${RANKED_SUBJECTS}
     insert into leaderboard_entries (period, audience, rank, kind, user_id, anonymous_key, raised_cents, given_cents, driven_cents, impact_cents)
     select ?, audience, row_number() over (partition by audience order by metric desc, tie), kind, user_id, anonymous_key,
            raised, given, driven, impact
       from ranked`,
    [days, days, JSON.stringify([...driven].map(([uid, v]) => ({ uid, v }))), period],
  );
}

export async function markRefreshed(trx: Q): Promise<void> {
  await trx.raw(`insert into leaderboard_state (id, refreshed_at) values (1, now())
    on conflict (id) do update set refreshed_at = excluded.refreshed_at`);
}

export async function refreshedAt(db: Q): Promise<Date | null> {
  return (await db('leaderboard_state').where({ id: 1 }).first('refreshed_at'))?.refreshed_at ?? null;
}
