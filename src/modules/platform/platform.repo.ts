import type { Db } from '../../db/knex';

async function tableExists(db: Db, name: string): Promise<boolean> {
  const r = await db.raw('select to_regclass(?) as t', [name]);
  return r.rows[0].t !== null;
}

async function countOr0(db: Db, sql: string): Promise<number> {
  const r = await db.raw(sql);
  return Number(r.rows[0]?.n ?? 0);
}

/** Counts from the real tables; a table that does not exist yet counts as 0. */
export async function platformCounts(db: Db) {
  const [users, fundraisers, ledger] = await Promise.all([
    tableExists(db, 'users'),
    tableExists(db, 'fundraisers'),
    tableExists(db, 'donations'),
  ]);
  return {
    campaigns_live: fundraisers
      ? await countOr0(db, `select count(*) n from fundraisers where status = 'active' and visibility <> 'private' and deleted_at is null`)
      : 0,
    campaigns_total: fundraisers ? await countOr0(db, `select count(*) n from fundraisers where deleted_at is null`) : 0,
    users_total: users ? await countOr0(db, `select count(*) n from users`) : 0,
    total_raised_cents: ledger ? await countOr0(db, `select coalesce(sum(amount_cents),0) n from donations where status = 'paid'`) : 0,
    donations_total: ledger ? await countOr0(db, `select count(*) n from donations where status = 'paid'`) : 0,
  };
}
