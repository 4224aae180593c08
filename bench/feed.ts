/**
 * The campaign-updates feed at scale: one reader following 1,000 holders, 100,000
 * project updates in the table (20 on each of 5,000 campaigns, a year of history), 50 campaigns
 * connected by paid gifts, 50,000 other follows and 100,000 other gifts around it. Times each of
 * the feed's statements (median of RUNS, warm) and appends their EXPLAIN (ANALYZE, BUFFERS) plans
 * to bench/results/feed.md. Needs DATABASE_URL (a server; the bench database cf_feed_bench is rebuilt).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/feed.ts
 */
import os from 'node:os';
import { Client } from 'pg';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { recipients } from '../src/modules/feed/feed.connections.reads';
import * as repo from '../src/modules/feed/feed.repo';
import * as feed from '../src/modules/feed/feed.updates.reads';
import { freshDatabase } from './db';
import { writeLatestRun } from './results';

const DB_NAME = 'cf_feed_bench';
const HOLDERS = 5_000;
const UPDATES = 100_000;
const FOLLOWED = 1_000;
const GIFTED = 50;
const RUNS = Number(process.env.FEED_RUNS ?? 25);
const log = (m: string) => console.log(`[feed-bench] ${m}`);

async function seed(db: Db): Promise<string> {
  const t0 = Date.now();
  const [reader] = await db('users').insert({ email: 'reader@bench.test', name: 'Reader', email_verified: true }).returning('id');
  await db.raw(`insert into users (email, name, email_verified)
    select 'holder-' || g || '@bench.test', 'Holder ' || g, true from generate_series(1, ${HOLDERS}) g`);
  await db.raw(`insert into users (email, name, email_verified)
    select 'fan-' || g || '@bench.test', 'Fan ' || g, true from generate_series(1, 1000) g`);
  await db.raw(`insert into fundraisers (owner_user_id, title, slug, goal_amount_cents, status, visibility, approved_at)
    select u.id, 'Campaign of ' || u.name, 'feed-bench-' || substr(u.email, 8, strpos(u.email, '@') - 8), 100000, 'active', 'public', now()
      from users u where u.email like 'holder-%'`);
  // Campaign n (by slug number) gets updates n, n + HOLDERS, ...; five minutes apart, newest now.
  await db.raw(`insert into project_updates (fundraiser_id, author_user_id, title, body, language, created_at)
    select f.id, f.owner_user_id, 'Update ' || g, repeat('Progress report. ', 20), 'en', now() - (g * interval '5 minutes')
      from generate_series(1, ${UPDATES}) g
      join fundraisers f on f.slug = 'feed-bench-' || (1 + (g % ${HOLDERS}))`);
  await db.raw(`insert into update_translations (update_id, lang, title, body, source)
    select id, 'es', 'Actualización', 'Informe', 'machine' from project_updates where random() < 0.3`);
  // The reader: follows holders 1..1000 since 180 days ago; paid gifts to campaigns 1001..1050 90 days ago.
  await db.raw(`insert into follows (follower_id, following_type, following_id, created_at)
    select ?, 'user', u.id, now() - interval '180 days'
      from users u where u.email ~ '^holder-[0-9]+@' and substring(u.email from 'holder-([0-9]+)@')::int <= ${FOLLOWED}`, [reader.id]);
  // An ended follow row of each: history the feed must skip.
  await db.raw(`insert into follows (follower_id, following_type, following_id, created_at, deleted_at)
    select follower_id, following_type, following_id, created_at - interval '100 days', created_at - interval '50 days' from follows`);
  const gift = (donor: string, where: string, paidAt: string) => `insert into donations
      (fundraiser_id, donor_user_id, donor_email, amount_cents, currency, status, method, receipt_id, paid_at, created_at)
    select f.id, ${donor}, null, 2500, 'USD', 'paid', 'checkout', md5(random()::text || clock_timestamp()::text), ${paidAt}, ${paidAt}
      from fundraisers f ${where}`;
  await db.raw(gift('?', `where substring(f.slug from 'feed-bench-([0-9]+)')::int between ${FOLLOWED + 1} and ${FOLLOWED + GIFTED}`, `now() - interval '90 days'`), [reader.id]);
  // Around it: 1,000 fans following 50 holders each, 100,000 gifts by them.
  await db.raw(`insert into follows (follower_id, following_type, following_id)
    select fan.id, 'user', h.id from users fan
      cross join lateral (select id from users where email like 'holder-%' and fan.id is not null order by random() limit 50) h
     where fan.email like 'fan-%'`);
  await db.raw(`insert into donations (fundraiser_id, donor_user_id, amount_cents, currency, status, method, receipt_id, paid_at, created_at)
    select f.id, fan.id, 1000, 'USD', 'paid', 'checkout', md5(g::text || fan.id::text), now() - (g * interval '1 minute'), now()
      from generate_series(1, 100) g cross join users fan
      join fundraisers f on f.slug = 'feed-bench-' || (1 + (g * 97 + substring(fan.email from 'fan-([0-9]+)@')::int * 13) % ${HOLDERS})
     where fan.email like 'fan-%'`);
  // 2,000 of the reader's unread updates already read one by one.
  await db.raw(`insert into campaign_update_reads (user_id, update_id)
    select ?, u.id from project_updates u join follows fo on fo.follower_id = ? and fo.deleted_at is null
      join fundraisers f on f.owner_user_id = fo.following_id and f.id = u.fundraiser_id
     where u.created_at >= fo.created_at order by u.created_at desc limit 2000`, [reader.id, reader.id]);
  await db.raw('vacuum analyze');
  log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return reader.id as string;
}

interface Measured { name: string; ms: number[]; plan: string; sql: string }

/** The statement(s) a repo call runs, captured from knex, so the plan is of the exact SQL. */
async function captured<T>(db: Db, fn: () => Promise<T>): Promise<{ sql: string; bindings: readonly unknown[] }> {
  let last: { sql: string; bindings: readonly unknown[] } | undefined;
  const onQuery = (q: { sql: string; bindings: readonly unknown[] }) => {
    if (!/^\s*(begin|rollback|commit|savepoint|release)\b/i.test(q.sql)) last = q;
  };
  db.on('query', onQuery);
  try {
    // Inside a transaction that rolls back: capturing a write changes nothing.
    await db.transaction(async (trx) => { await fnIn(trx, fn); throw ROLLBACK; }).catch((e) => { if (e !== ROLLBACK) throw e; });
  } finally {
    db.off('query', onQuery);
  }
  return last!;
}

async function measure(db: Db, name: string, fn: () => Promise<unknown>, write = false): Promise<Measured> {
  const ms: number[] = [];
  for (let i = 0; i < RUNS + 3; i += 1) {
    const t0 = process.hrtime.bigint();
    if (write) await db.transaction(async (trx) => { await fnIn(trx, fn); throw ROLLBACK; }).catch((e) => { if (e !== ROLLBACK) throw e; });
    else await fn();
    if (i >= 3) ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  // knex reports the statement as sent ($1, $2, ...): explain it over a plain connection, rolled back.
  const q = await captured(db, fn);
  const pgc = new Client({ connectionString: benchUrl });
  await pgc.connect();
  let plan = '';
  try {
    await pgc.query('begin');
    const r = await pgc.query(`explain (analyze, buffers) ${q.sql}`, q.bindings as unknown[]);
    plan = r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n');
  } finally {
    await pgc.query('rollback');
    await pgc.end();
  }
  ms.sort((a, b) => a - b);
  log(`${name}: median ${ms[Math.floor(ms.length / 2)]!.toFixed(2)} ms, p90 ${ms[Math.floor(ms.length * 0.9)]!.toFixed(2)} ms`);
  return { name, ms, plan, sql: q.sql };
}
const ROLLBACK = new Error('rollback');
let benchUrl = '';
// Writes are timed inside a transaction that rolls back, so every run starts from the same state.
let current: Db | null = null;
async function fnIn(trx: Db, fn: () => Promise<unknown>) {
  const saved = current;
  current = trx;
  try { await fn(); } finally { current = saved; }
}

async function main() {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL is required (a Postgres server; the bench builds its own database)');
  const url = await freshDatabase(base, DB_NAME);
  benchUrl = url;
  const db = createDb(url, { max: 4 });
  try {
    await migrateLatest(db);
    const me = await seed(db);
    const q = () => current ?? db;
    const counts = (await db.raw(`select (select count(*) from project_updates) updates, (select count(*) from follows) follows,
      (select count(*) from donations) donations, (select count(*) from fundraisers) campaigns`)).rows[0];
    const unread = await feed.unreadCount(db, me);
    const first = await feed.page(db, me, 21, null, null);
    const deep = await feed.page(db, me, 21, null, null).then(async () => {
      // ~5,000 items down: a cursor in the middle of the reader's history.
      const r = await db.raw(`select to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') ts, u.id from project_updates u
        order by u.created_at desc, u.id desc offset 25000 limit 1`);
      return { ts: r.rows[0].ts as string, id: r.rows[0].id as string };
    });
    const some = first[5]!.id;
    const popular = (await db.raw(`select u.id from project_updates u join fundraisers f on f.id = u.fundraiser_id
      join follows fo on fo.following_id = f.owner_user_id and fo.deleted_at is null group by u.id order by count(*) desc limit 1`)).rows[0].id;
    const results = [
      await measure(db, 'first page (limit 20 + 1)', () => feed.page(q(), me, 21, null, null)),
      await measure(db, 'first page, lang=es overlay', () => feed.page(q(), me, 21, null, 'es')),
      await measure(db, 'page after a cursor deep in history', () => feed.page(q(), me, 21, deep, null)),
      await measure(db, 'unread_count (also updatesUnreadCount)', () => feed.unreadCount(q(), me)),
      await measure(db, 'read one: is it in the feed', () => feed.inFeed(q(), me, some)),
      await measure(db, 'read-all (rolled back each run)', () => repo.markAllRead(q(), me, null), true),
      await measure(db, 'update.posted recipients (most-followed holder)', () => recipients(q(), popular)),
    ];
    report({ counts, unread, results });
  } finally {
    await db.destroy();
  }
}

function report(r: { counts: Record<string, number>; unread: number; results: Measured[] }) {
  const med = (ms: number[]) => ms[Math.floor(ms.length / 2)]!.toFixed(2);
  const p90 = (ms: number[]) => ms[Math.floor(ms.length * 0.9)]!.toFixed(2);
  const lines = [
    '',
    '<!-- feed:start -->',
    `## Campaign-updates feed at scale (bench/feed.ts, ${new Date().toISOString().slice(0, 10)})`,
    '',
    `One reader follows ${FOLLOWED.toLocaleString('en')} holders and gave paid gifts to ${GIFTED} more campaigns; the table holds ` +
      `${Number(r.counts.updates).toLocaleString('en')} project updates (20 on each of ${Number(r.counts.campaigns).toLocaleString('en')} campaigns, five minutes apart over a year), ` +
      `${Number(r.counts.follows).toLocaleString('en')} follow rows (ended ones included) and ${Number(r.counts.donations).toLocaleString('en')} gifts. ` +
      `The reader's feed: ${((FOLLOWED + GIFTED) * 20).toLocaleString('en')} updates, ${r.unread.toLocaleString('en')} unread (follows began 180 days ago, gifts 90; 2,000 read one by one). ` +
      `Postgres on ${os.cpus().length} cores shared with other work; ${RUNS} warm runs of each statement through the feed repo.`,
    '',
    '| statement | median ms | p90 ms |',
    '|---|---:|---:|',
    ...r.results.map((m) => `| ${m.name} | ${med(m.ms)} | ${p90(m.ms)} |`),
    '',
    'Why it stays fast: the connected campaigns are found from the reader\'s own rows (follows through `follows_list_idx`, gifts through `donations_donor_idx`), ' +
      'then each campaign contributes at most one page of updates through `project_updates_fundraiser_idx` (fundraiser_id, created_at desc, id desc) in a ' +
      'LATERAL scan that starts at the cursor, so a page costs about (connected campaigns x page size) index reads, whatever the depth of the cursor or the size of the table. ' +
      'The unread count walks only the updates posted since each relationship began (the same index, range on created_at) with an anti-join on the read marks\' primary key.',
    '',
    ...r.results.flatMap((m) => ['<details><summary>' + m.name + '</summary>', '', '```', m.plan, '```', '', '</details>', '']),
    '<!-- feed:end -->',
    '',
  ];
  const file = writeLatestRun('feed', {
    title: 'Campaign-updates feed at scale (`npx tsx bench/feed.ts`)',
    summary: `first page median ${med(r.results[0]!.ms)} ms`,
    body: lines.join('\n').replace(/^## Campaign-updates feed at scale[^\n]*/m, '## Latest run'),
  });
  log(`wrote ${file}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
