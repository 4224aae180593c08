import type { Knex } from 'knex';

/**
 * The sandbox's clock: real time plus an offset that only moves forward (like a Stripe test
 * clock, but one for the whole sandbox). Subscription periods and renewals follow it; event
 * and balance-transaction times stay real, so events keep the order they were made in.
 */
const CLOCK_ID = 'clock_sandbox';

type Q = Knex | Knex.Transaction;

const realS = () => Math.floor(Date.now() / 1000);

export async function clockOffsetS(db: Q): Promise<number> {
  const row = await db('sandbox_objects').where({ id: CLOCK_ID, kind: 'clock' }).first('data');
  return Number(row?.data?.offset_s ?? 0);
}

/** The sandbox's now, in unix seconds. */
export async function clockNowS(db: Q): Promise<number> {
  return realS() + (await clockOffsetS(db));
}

/** Moves the clock `seconds` forward (serialised on the clock row); answers the new now. */
export async function advanceClock(db: Knex, seconds: number): Promise<{ now: number; offset: number }> {
  return db.transaction(async (trx) => {
    await trx.raw(`insert into sandbox_objects (id, kind, data) values (?, 'clock', '{"offset_s":0}'::jsonb) on conflict (id) do nothing`, [CLOCK_ID]);
    const row = await trx('sandbox_objects').where({ id: CLOCK_ID }).forUpdate().first('data');
    const offset = Number(row.data?.offset_s ?? 0) + seconds;
    await trx('sandbox_objects').where({ id: CLOCK_ID }).update({ data: JSON.stringify({ offset_s: offset }), updated_at: trx.fn.now() });
    return { now: realS() + offset, offset };
  });
}
