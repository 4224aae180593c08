/**
 * Leaderboard bench: `npx tsx bench/leaderboard.ts` with DATABASE_URL set. Works on its own copy
 * (cf_leaderboard) of the money bench's cf_money_1m (100k campaigns, 1M settled gifts; run
 * `npm run bench:settle` or bench/money-seed.ts first), adds users up to 100k and spreads the gifts
 * over them (about half signed-in donors, a tenth anonymous), then times the ranking rebuild and
 * the reads, and prints the plans. Output is Markdown for bench/results/leaderboard.md.
 */
import { Client } from 'pg';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { refreshLeaderboard } from '../src/modules/leaderboard';
import * as repo from '../src/modules/leaderboard/leaderboard.repo';
import * as pages from '../src/modules/leaderboard/leaderboard.pages.reads';
import * as reads from '../src/modules/leaderboard/leaderboard.reads';

const SOURCE = 'cf_money_1m';
const TARGET = 'cf_leaderboard';
const USERS = 100_000;

const urlOf = (base: string, name: string) => Object.assign(new URL(base), { pathname: `/${name}` }).toString();

async function ensureCopy(base: string): Promise<boolean> {
  const c = new Client({ connectionString: base });
  await c.connect();
  try {
    if ((await c.query('select 1 from pg_database where datname = $1', [TARGET])).rowCount) return false;
    if (!(await c.query('select 1 from pg_database where datname = $1', [SOURCE])).rowCount) throw new Error(`${SOURCE} is missing: seed the money bench first`);
    await c.query(`create database ${TARGET} template ${SOURCE}`);
    return true;
  } finally {
    await c.end();
  }
}

async function spreadGifts(db: Db): Promise<void> {
  const have = Number((await db.raw('select count(*)::int as n from users')).rows[0].n);
  if (have < USERS) {
    await db.raw(
      `insert into users (email, name, profile_slug, roles, email_verified)
       select 'lb-' || g || '@bench.test', 'Bench Person ' || g, 'lb-person-' || g,
              case when g % 50 = 0 then '{user,ambassador}'::text[] else '{user}'::text[] end, true
         from generate_series(1, ?) g`,
      [USERS - have],
    );
  }
  // Gifts by hash of their id: 50% from signed-in accounts, 10% anonymous, the rest named guests.
  await db.raw(`
    with u as (select id, row_number() over (order by id) - 1 as i from users),
         n as (select count(*) as c from users)
    update donations d set donor_user_id = u.id, donor_email = null
      from u, n
     where d.donor_user_id is null and abs(hashtext(d.id::text)) % 100 < 50
       and u.i = abs(hashtext(d.id::text || 'u')) % n.c`);
  await db.raw(`update donations set anonymous = (abs(hashtext(id::text || 'a')) % 10 = 0)`);
  // Gifts spread over the last year so the 30-day and 7-day windows hold a realistic share.
  await db.raw(`update donations set paid_at = now() - (abs(hashtext(id::text || 'p')) % 365) * interval '1 day' - interval '1 hour'`);
  await db.raw('analyze');
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function time(n: number, run: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const t0 = process.hrtime.bigint();
    await run();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { p50: pct(ms, 50), p99: pct(ms, 99) };
}

async function main() {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL is required');
  const fresh = await ensureCopy(base);
  const db = createDb(urlOf(base, TARGET), { max: 4 });
  try {
    await migrateLatest(db);
    if (fresh || process.env.BENCH_RESPREAD) await spreadGifts(db);
    const counts = (await db.raw(`select (select count(*) from users) u, (select count(*) from fundraisers) f,
      (select count(*) from donations where status = 'paid') d, (select count(*) from donations where anonymous) a,
      (select count(*) from donations where donor_user_id is not null) s`)).rows[0];
    console.log(`\n### Leaderboard (${counts.f} campaigns, ${counts.d} settled gifts: ${counts.s} signed-in, ${counts.a} anonymous; ${counts.u} users)\n`);
    const r0 = Date.now();
    await refreshLeaderboard(db);
    const rebuild = Date.now() - r0;
    const sizes = (await db.raw('select period, audience, count(*)::int n from leaderboard_entries group by 1, 2 order by 1, 2')).rows;
    console.log(`Rebuild of every period and audience (the refresh job): ${(rebuild / 1000).toFixed(1)} s; rows: ${sizes.map((r: any) => `${r.period}/${r.audience} ${r.n}`).join(', ')}\n`);
    console.log('| read | p50 ms | p99 ms |\n|---|---|---|');
    const N = 200;
    for (const period of repo.PERIODS) {
      for (const audience of repo.AUDIENCES) {
        const t = await time(N, () => reads.page(db, { period, audience, q: null, limit: 25, offset: 0 }));
        console.log(`| page 1, ${period}, ${audience} | ${t.p50.toFixed(2)} | ${t.p99.toFixed(2)} |`);
      }
    }
    const deep = await time(N, () => reads.page(db, { period: 'all', audience: 'all', q: null, limit: 100, offset: 50_000 }));
    console.log(`| offset 50,000 limit 100, all | ${deep.p50.toFixed(2)} | ${deep.p99.toFixed(2)} |`);
    const q = await time(50, () => reads.page(db, { period: 'all', audience: 'all', q: 'person 123', limit: 25, offset: 0 }));
    console.log(`| q=person 123, all | ${q.p50.toFixed(2)} | ${q.p99.toFixed(2)} |`);
    const someone = (await db.raw(`select user_id from leaderboard_entries where period = 'all' and audience = 'all' and user_id is not null offset 5000 limit 1`)).rows[0].user_id;
    const me = await time(N, () => reads.standing(db, someone, 'all', 'all'));
    console.log(`| me (standing), all | ${me.p50.toFixed(2)} | ${me.p99.toFixed(2)} |`);
    const top = await time(20, () => pages.topCreators(db, 10));
    console.log(`| top creators (uncached; cached 60 s) | ${top.p50.toFixed(2)} | ${top.p99.toFixed(2)} |`);
    const { identity } = (await db.raw(`select identity from donor_keys where kind = 'guest' limit 1`)).rows[0] ?? {};
    if (identity) {
      const dp = await time(N, () => pages.donorPage(db, 'guest', identity));
      console.log(`| donor page (guest) | ${dp.p50.toFixed(2)} | ${dp.p99.toFixed(2)} |`);
    }
    const live = await time(3, () => db.raw(`select f.owner_user_id, sum(d.amount_cents) from donations d join fundraisers f on f.id = d.fundraiser_id where d.status = 'paid' group by 1 order by 2 desc limit 25`));
    console.log(`| (for comparison) live aggregate of raised, no ranking of given | ${live.p50.toFixed(0)} | ${live.p99.toFixed(0)} |`);
    const plan = await db.raw(`explain analyze select e.rank, u.name from leaderboard_entries e left join users u on u.id = e.user_id
      where e.period = '30d' and e.audience = 'all' and e.rank > 0 and (e.user_id is null or (u.status = 'active' and not u.profile_private)) order by e.rank limit 25`);
    console.log('\nPlan of a page (30d, all):\n\n```\n' + plan.rows.map((r: any) => r['QUERY PLAN']).join('\n') + '\n```');
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
