import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export interface EndorsementRow {
  fundraiser_id: string;
  user_id: string;
  message: string | null;
  created_at: Date;
}

/** Inserts the endorsement, or updates its message when one is given; `created` says which. */
export async function upsert(trx: Q, fundraiserId: string, userId: string, message: string | null | undefined) {
  const { rows } = await trx.raw(
    `insert into endorsements (fundraiser_id, user_id, message) values (?, ?, ?)
     on conflict (fundraiser_id, user_id) do update
       set message = case when ?::boolean then excluded.message else endorsements.message end
     returning fundraiser_id, user_id, message, created_at, (xmax = 0) as created`,
    [fundraiserId, userId, message ?? null, message !== undefined],
  );
  return rows[0] as EndorsementRow & { created: boolean };
}

export async function remove(db: Q, fundraiserId: string, userId: string): Promise<void> {
  await db('endorsements').where({ fundraiser_id: fundraiserId, user_id: userId }).del();
}

export async function insertRequest(trx: Q, fundraiserId: string, userId: string, email: string) {
  const [row] = await trx('endorsement_requests')
    .insert({ fundraiser_id: fundraiserId, requested_by: userId, email })
    .returning(['id', 'fundraiser_id', 'email', 'created_at']);
  return row as { id: string; fundraiser_id: string; email: string; created_at: Date };
}

/** Requests sent for a campaign in the last day (the daily cap). */
export async function requestsToday(db: Q, fundraiserId: string): Promise<number> {
  const row = await db('endorsement_requests')
    .where('fundraiser_id', fundraiserId)
    .andWhere('created_at', '>', db.raw(`now() - interval '1 day'`))
    .first(db.raw('count(*)::int as n'));
  return Number(row?.n ?? 0);
}
