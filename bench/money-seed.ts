/**
 * The money bench's two databases on DATABASE_URL's server, identical but for the gifts:
 *   cf_money_base  the 100k bench campaigns (bench/seed.ts) with their money counters at zero
 *   cf_money_1m    a copy of it (CREATE DATABASE ... TEMPLATE, so the same ids and slugs) plus
 *                  1,000,000 paid gifts with their ledger groups, donor rows and counters
 * Both are the bench's own, so the discovery bench's cf_bench (and whoever measures on it) is untouched.
 */
import { Client } from 'pg';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { ensureSeeded } from './db';

export const BASE_DB = 'cf_money_base';
export const MONEY_DB = 'cf_money_1m';
const GIFTS = Number(process.env.BENCH_DONATIONS ?? 1_000_000);
/** Gifts to one campaign in the last 24 hours: the worst case of the `donations_last_24h` count. */
export const HOT_GIFTS = 10_000;
const BATCH = 100_000;

export function urlOf(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery<T>(base: string, run: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: base });
  await c.connect();
  try {
    return await run(c);
  } finally {
    await c.end();
  }
}

const exists = (c: Client, name: string) => c.query('select 1 from pg_database where datname = $1', [name]).then((r) => r.rowCount === 1);

/** The hot campaign: the first live public bench campaign by id, the same row in both databases. */
export const HOT_SQL = `select id, slug from fundraisers where slug like 'bench-%' and status = 'active' and visibility = 'public'
  and deleted_at is null order by id limit 1`;

/** Creates (once) and answers the URLs of both databases. */
export async function moneyDatabases(base: string, campaigns: number, log: (m: string) => void): Promise<{ baseUrl: string; moneyUrl: string }> {
  const baseUrl = urlOf(base, BASE_DB);
  const moneyUrl = urlOf(base, MONEY_DB);
  if (!(await adminQuery(base, (c) => exists(c, BASE_DB)))) await adminQuery(base, (c) => c.query(`create database ${BASE_DB}`));
  if (!(await adminQuery(base, (c) => exists(c, MONEY_DB)))) {
    const handle = await connectDatabase(parseConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', DATABASE_URL: baseUrl }), { log: () => undefined, statementTimeoutMs: 0 });
    try {
      await ensureSeeded(handle.db, campaigns, log);
      // The discovery seed invents raised/donor figures; here they must follow from gifts (zero: none yet).
      await handle.db.raw(`update fundraisers set raised_cents = 0, tips_cents = 0, donation_count = 0, donor_count = 0, goal_reached_at = null
        where raised_cents <> 0 or tips_cents <> 0 or donation_count <> 0 or donor_count <> 0 or goal_reached_at is not null`);
      await handle.db.raw('vacuum analyze fundraisers');
    } finally {
      await handle.close();
    }
    const t0 = Date.now();
    await adminQuery(base, (c) => c.query(`create database ${MONEY_DB} template ${BASE_DB}`));
    log(`copied ${BASE_DB} to ${MONEY_DB} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    try {
      await seedDonations(moneyUrl, log);
    } catch (err) {
      // A half-seeded copy must not be reused by the next run.
      await adminQuery(base, (c) => c.query(`drop database if exists ${MONEY_DB} with (force)`));
      throw err;
    }
  } else {
    log(`reusing ${BASE_DB} and ${MONEY_DB}`);
  }
  return { baseUrl, moneyUrl };
}

/**
 * What settle() writes for a gift, set-based: the donations row, the balanced group (donation,
 * tip, processor fee; the platform fee is 0 at the default PLATFORM_FEE_BPS), then donor rows and
 * counters recomputed from the gifts. Per-row triggers (FK checks, the deferred group-balance
 * trigger) are off for the load and secondary indexes are rebuilt after it: check-ledger then
 * verifies every group, counter and donor row.
 */
async function seedDonations(url: string, log: (m: string) => void): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  const t0 = Date.now();
  try {
    await c.query(`set session_replication_role = replica; set maintenance_work_mem = '256MB'; set work_mem = '64MB'`);
    const { rows: idx } = await c.query(`select indexname, indexdef from pg_indexes i where schemaname = 'public'
      and tablename in ('donations', 'ledger_entries')
      and not exists (select 1 from pg_constraint k where k.conindid = (quote_ident(i.indexname))::regclass)`);
    for (const i of idx) await c.query(`drop index ${i.indexname}`);
    await c.query(`create temp table camp as select row_number() over (order by random())::int k, id from fundraisers
      where slug like 'bench-%' and status in ('active', 'ended') and deleted_at is null`);
    await c.query('create index on camp (k); analyze camp');
    const hot = (await c.query(HOT_SQL)).rows[0];
    const n = Number((await c.query('select count(*) n from camp')).rows[0].n);
    const spread = GIFTS - HOT_GIFTS;
    for (let from = 1; from <= GIFTS; from += BATCH) {
      const to = Math.min(GIFTS, from + BATCH - 1);
      const t1 = Date.now();
      await c.query('drop table if exists b');
      await c.query(
        `create temp table b as
         select g.*, round((g.amount + g.tip) * 0.029)::bigint + 30 as fee, lower(f.currency) as cur, f.currency,
                case when g.i > $3 then now() - random() * interval '23 hours'
                     else f.created_at + random() * (now() - f.created_at) end as paid_at
           from (select r.i, gen_random_uuid() as id, gen_random_uuid() as gid,
                        case when r.i > $3 then $4::uuid else camp.id end as fundraiser_id,
                        r.amount, case when r.i % 3 = 0 then floor(r.amount * 0.1)::bigint else 0 end as tip,
                        'donor-' || floor(power(random(), 1.5) * 300000)::int || '@bench.test' as email,
                        random() < 0.1 as anonymous
                   -- Skewed like real giving: campaign k's share falls with k (the top one ~0.3% of all gifts, the median a handful).
                   from (select i, 1 + floor(power(random(), 2) * $5)::int as k, (500 + floor(power(random(), 3) * 200000))::bigint as amount
                           from generate_series($1::int, $2::int) i) r
                   left join camp on camp.k = r.k) g
           join fundraisers f on f.id = g.fundraiser_id`,
        [from, to, spread, hot.id, n],
      );
      await c.query(
        `insert into donations (id, fundraiser_id, donor_email, donor_name, anonymous, amount_cents, tip_cents, currency, status, method,
           processor_payment_intent_id, processor_charge_id, processor_fee_cents, receipt_id, locale, paid_at, created_at, updated_at)
         select id, fundraiser_id, email, 'Bench Donor', anonymous, amount, tip, currency, 'paid', 'payment_intent',
           'pi_seed_' || i, 'ch_seed_' || i, fee, 'rcpt_seed_' || i || '_' || md5(id::text), 'en', paid_at,
           paid_at - interval '2 minutes', paid_at
         from b`,
      );
      await c.query(
        `insert into ledger_entries (group_id, account, amount_cents, currency, kind, fundraiser_id, donation_id, created_at)
         select b.gid, e.account, e.amount, b.cur, e.kind, b.fundraiser_id, b.id, b.paid_at
           from b cross join lateral (values
             ('asset:processor_balance', b.amount, 'donation'), ('liability:campaign:' || b.fundraiser_id, -b.amount, 'donation'),
             ('asset:processor_balance', b.tip, 'tip'), ('revenue:tips', -b.tip, 'tip'),
             ('liability:campaign:' || b.fundraiser_id, b.fee, 'processor_fee'), ('asset:processor_balance', -b.fee, 'processor_fee')
           ) as e(account, amount, kind)
          where e.amount <> 0`,
      );
      log(`gifts ${to}/${GIFTS} (${Date.now() - t1} ms)`);
    }
    for (const i of idx) await c.query(i.indexdef);
    log(`indexes rebuilt (${((Date.now() - t0) / 1000).toFixed(0)} s so far)`);
    await c.query(`insert into fundraiser_donors (fundraiser_id, donor_key, paid_count)
      select fundraiser_id, coalesce(donor_user_id::text, lower(donor_email), id::text), count(*) from donations where status = 'paid' group by 1, 2
      on conflict (fundraiser_id, donor_key) do update set paid_count = excluded.paid_count`);
    await c.query(`update fundraisers f set raised_cents = g.raised, tips_cents = g.tips, donation_count = g.n, donor_count = g.donors,
        goal_reached_at = case when f.goal_amount_cents > 0 and g.raised >= f.goal_amount_cents then coalesce(f.goal_reached_at, now()) end
      from (select fundraiser_id, sum(amount_cents) raised, sum(tip_cents) tips, count(*) n,
                   count(distinct coalesce(donor_user_id::text, lower(donor_email), id::text)) donors
              from donations where status = 'paid' group by 1) g
     where g.fundraiser_id = f.id`);
    await c.query('set session_replication_role = origin');
    for (const t of ['donations', 'ledger_entries', 'fundraiser_donors', 'fundraisers']) await c.query(`vacuum analyze ${t}`);
    log(`seeded ${GIFTS} gifts in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    await c.end();
  }
}
