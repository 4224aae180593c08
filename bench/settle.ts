/**
 * Money bench. Settlement throughput: the real API process (money-api.ts) on
 * cf_money_1m (1M gifts, money-seed.ts) takes pending gifts through POST /payments/create-intent,
 * then signed processor events (stripe-node's generateTestHeaderString) over HTTP at bounded
 * concurrency: every payment_intent.succeeded, ~15% refunds (full or partial) and ~20%
 * duplicates, shuffled; timed until every event has answered 200. Then check-ledger (the CLI)
 * and the counters against the model. Reads before/after the 1M gifts: money-reads.ts.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:settle [-- seed|settle|reads|report|jobs]
 *   BENCH_SETTLE_GIFTS=2000 BENCH_DONATIONS=1000000 BENCH_CAMPAIGNS=100000 READS_SECONDS=6 READS_ROUNDS=3 READS_CONNECTIONS=32
 *
 * Budget: 60 minutes (BENCH_BUDGET_S): seeding 1M gifts on a fresh server is most of it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import Stripe from 'stripe';
import { sandboxFee } from '../src/integrations/payments';
import { startApi, WEBHOOK_SECRET, type Api } from './money-api';
import { runReads } from './money-reads';
import { writeMoneySection, type SettleResult } from './money-report';
import { moneyDatabases, urlOf } from './money-seed';
import { ensureSeeded } from './db';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { runBench } from './deadline';

const GIFTS = Number(process.env.BENCH_SETTLE_GIFTS ?? 2000);
const CAMPAIGNS = Number(process.env.BENCH_CAMPAIGNS ?? 100_000);
export const OUT = path.resolve(__dirname, '.out');
const log = (m: string) => process.stdout.write(`[money] ${m}\n`);
const signer = new Stripe('sk_test_bench_offline');

let seed = 0x5eed;
const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const shuffle = <T>(xs: T[]): T[] => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
};
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

async function pool<T>(items: T[], n: number, run: (x: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++;
      await run(items[i]!, i);
    }
  }));
}

interface Gift { id: string; pi: string; fundraiser_id: string; email: string; amount: number; tip: number; fee: number; refunded: number }

let ip = 0;
const nextIp = () => ((ip += 1), `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`);

/** Gifts through the API; one in ten repeats an earlier donor on the same campaign. */
async function createGifts(api: Api, campaigns: string[], count: number, tag: string): Promise<{ gifts: Gift[]; seconds: number; p50: number; p99: number }> {
  const plan = Array.from({ length: count }, (_, i) => ({ fundraiser_id: campaigns[Math.floor(rand() * campaigns.length)]!, email: `settle-${tag}-${i}@bench.test` }));
  for (let i = 1; i < count; i += 10) Object.assign(plan[i]!, plan[Math.floor(rand() * i)]!);
  const gifts: Gift[] = [];
  const lat: number[] = [];
  const t0 = performance.now();
  await pool(plan, 16, async (p, i) => {
    const amount = 500 + Math.floor(rand() * 50_000);
    const tip = i % 3 === 0 ? Math.floor(amount / 10) : 0;
    const t = performance.now();
    const res = await fetch(`${api.base}/api/v1/payments/create-intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': nextIp() },
      body: JSON.stringify({ fundraiser_id: p.fundraiser_id, amount_cents: amount, tip_cents: tip, donor_email: p.email }),
    });
    const body = (await res.json()) as { data?: { donation_id: string; payment_intent_id: string } };
    lat.push(performance.now() - t);
    if (res.status !== 201 || !body.data) throw new Error(`create-intent answered ${res.status} ${JSON.stringify(body)}`);
    gifts.push({ id: body.data.donation_id, pi: body.data.payment_intent_id, fundraiser_id: p.fundraiser_id, email: p.email, amount, tip, fee: sandboxFee(amount + tip), refunded: 0 });
  });
  const seconds = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return { gifts, seconds, p50: pct(lat, 50), p99: pct(lat, 99) };
}

const event = (tag: string, type: string, object: Record<string, unknown>) => ({
  id: `evt_bench_${tag}_${randomUUID().replace(/-/g, '')}`, object: 'event', api_version: '2025-01-27.acacia',
  created: Math.floor(Date.now() / 1000), type, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, data: { object },
});

/** Every success, 10% full and 5% partial refunds (processor ids as the sandbox's), then 20% duplicates, shuffled. */
function eventsFor(gifts: Gift[], tag: string): { distinct: number; stream: Array<Record<string, unknown>> } {
  const meta = (g: Gift) => ({ kind: 'donation', donation_id: g.id });
  const charge = (g: Gift) => `ch_${g.pi.replace(/^pi_/, '')}`;
  const events = gifts.map((g) => event(tag, 'payment_intent.succeeded', {
    id: g.pi, object: 'payment_intent', amount: g.amount + g.tip, amount_received: g.amount + g.tip, currency: 'usd',
    status: 'succeeded', latest_charge: charge(g), metadata: meta(g),
  }));
  gifts.forEach((g, i) => {
    if (i % 20 >= 3) return;
    const gross = g.amount + g.tip;
    g.refunded = i % 20 < 2 ? gross : Math.floor(gross / 2);
    events.push(event(tag, 'charge.refunded', {
      id: charge(g), object: 'charge', amount: gross, amount_refunded: g.refunded, refunded: g.refunded >= gross, currency: 'usd',
      paid: true, status: 'succeeded', payment_intent: g.pi, metadata: meta(g),
    }));
  });
  const dups = Array.from({ length: Math.round(events.length * 0.2) }, () => events[Math.floor(rand() * events.length)]!);
  return { distinct: events.length, stream: shuffle([...events, ...dups]) };
}

/** Signed up front (the signer's cost is not the server's); timed until the last event answers 200. */
async function deliver(api: Api, stream: Array<Record<string, unknown>>, concurrency: number) {
  const signed = stream.map((e) => {
    const payload = JSON.stringify(e);
    return { payload, sig: signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
  });
  const lat: number[] = [];
  let retries = 0;
  const t0 = performance.now();
  await pool(signed, concurrency, async (s) => {
    for (let attempt = 0; ; attempt++) {
      const t = performance.now();
      const res = await fetch(`${api.base}/api/v1/webhooks/stripe`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': s.sig }, body: s.payload,
      });
      await res.arrayBuffer();
      lat.push(performance.now() - t);
      if (res.status === 200) return;
      // As Stripe would: a 500 is retried (counted and reported); anything else is a bench failure.
      if (res.status !== 500 || attempt >= 5) throw new Error(`webhook answered ${res.status}`);
      retries++;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  const seconds = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return { seconds, rate: stream.length / seconds, p50: pct(lat, 50), p99: pct(lat, 99), max: lat[lat.length - 1] ?? 0, retries };
}

/** The counters, statuses, events and processor balance the model expects, against the database. */
async function verify(c: Client, gifts: Gift[], before: Map<string, Record<string, number>>, distinct: number, tag: string): Promise<string[]> {
  const want = new Map<string, { raised: number; tips: number; count: number; donors: Set<string> }>();
  for (const g of gifts) {
    const w = want.get(g.fundraiser_id) ?? { raised: 0, tips: 0, count: 0, donors: new Set<string>() };
    w.raised += g.amount - Math.min(g.amount, g.refunded);
    w.tips += g.tip - Math.min(g.tip, Math.max(0, g.refunded - g.amount));
    if (g.refunded < g.amount) { w.count += 1; w.donors.add(g.email); }
    want.set(g.fundraiser_id, w);
  }
  const out: string[] = [];
  const { rows } = await c.query('select id, raised_cents, tips_cents, donation_count, donor_count from fundraisers where id = any($1)', [[...want.keys()]]);
  for (const r of rows) {
    const b = before.get(r.id)!;
    const w = want.get(r.id)!;
    const got = [Number(r.raised_cents) - b.raised!, Number(r.tips_cents) - b.tips!, r.donation_count - b.count!, r.donor_count - b.donors!];
    const exp = [w.raised, w.tips, w.count, w.donors.size];
    if (got.join() !== exp.join()) out.push(`campaign ${r.id}: moved by ${got.join('/')}, expected ${exp.join('/')}`);
  }
  const ids = gifts.map((g) => g.id);
  const st = await c.query(`select count(*) filter (where status = 'paid')::int paid, count(*) filter (where status = 'refunded')::int refunded from donations where id = any($1)`, [ids]);
  const refunded = gifts.filter((g) => g.refunded >= g.amount).length;
  if (st.rows[0].paid !== gifts.length - refunded || st.rows[0].refunded !== refunded) out.push(`statuses ${JSON.stringify(st.rows[0])}, expected ${gifts.length - refunded} paid, ${refunded} refunded`);
  const ev = await c.query(`select count(*)::int n from processed_webhook_events where event_id like $1`, [`evt_bench_${tag}_%`]);
  if (ev.rows[0].n !== distinct) out.push(`processed events ${ev.rows[0].n}, expected ${distinct}`);
  const paid = await c.query(`select count(*)::int n from events where type = 'donation.paid' and payload->>'donation_id' = any($1)`, [ids]);
  if (paid.rows[0].n !== gifts.length) out.push(`donation.paid events ${paid.rows[0].n}, expected ${gifts.length}`);
  const held = await c.query(`select coalesce(sum(amount_cents), 0)::bigint s from ledger_entries where account = 'asset:processor_balance' and donation_id = any($1)`, [ids]);
  const heldWant = gifts.reduce((s, g) => s + g.amount + g.tip - g.fee - g.refunded, 0);
  if (Number(held.rows[0].s) !== heldWant) out.push(`processor balance moved ${held.rows[0].s}, expected ${heldWant}`);
  return out;
}

async function settleRun(api: Api, c: Client, name: string, campaigns: string[], gifts: number, concurrency: number): Promise<SettleResult> {
  const tag = `${Date.now().toString(36)}${concurrency}`;
  const beforeRows = (await c.query('select id, raised_cents, tips_cents, donation_count, donor_count from fundraisers where id = any($1)', [campaigns])).rows;
  const before = new Map(beforeRows.map((r) => [r.id as string, { raised: Number(r.raised_cents), tips: Number(r.tips_cents), count: r.donation_count, donors: r.donor_count }]));
  const created = await createGifts(api, campaigns, gifts, tag);
  // As the sandbox's confirm would: the PaymentIntent succeeded, so the fee prefetch finds the 2.9% + 30c.
  await c.query(`update sandbox_objects set data = data || '{"status":"succeeded"}'::jsonb where id = any($1)`, [created.gifts.map((g) => g.pi)]);
  const { distinct, stream } = eventsFor(created.gifts, tag);
  const d = await deliver(api, stream, concurrency);
  const problems = await verify(c, created.gifts, before, distinct, tag);
  const r: SettleResult = {
    name, campaigns: campaigns.length, gifts, concurrency, events: stream.length, distinct,
    create: { rate: gifts / created.seconds, p50: created.p50, p99: created.p99 },
    ...d, problems, load: os.loadavg(),
  };
  log(`${name}: ${r.events} events (${distinct} distinct) at ${concurrency}: ${r.rate.toFixed(0)} events/s, p50 ${r.p50.toFixed(1)} ms, ` +
    `p99 ${r.p99.toFixed(1)} ms, retries ${r.retries}; create-intent ${r.create.rate.toFixed(0)}/s; model ${problems.length ? problems.slice(0, 5).join('; ') : 'exact'}`);
  return r;
}

function checkLedger(url: string): { ok: boolean; line: string; seconds: number } {
  const t0 = performance.now();
  try {
    const line = execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'check-ledger'], {
      cwd: path.resolve(__dirname, '..'), env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: url, LOG_LEVEL: 'silent' }, encoding: 'utf8',
    }).trim();
    return { ok: true, line, seconds: (performance.now() - t0) / 1000 };
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string };
    return { ok: false, line: `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(0, 6).join(' | '), seconds: (performance.now() - t0) / 1000 };
  }
}

async function settleBench(moneyUrl: string) {
  const c = new Client({ connectionString: moneyUrl });
  await c.connect();
  const api = await startApi(moneyUrl);
  const results: SettleResult[] = [];
  try {
    const live = (n: number) => c.query(`select id from fundraisers where slug like 'bench-%' and status = 'active' and visibility = 'public'
      and deleted_at is null order by random() limit $1`, [n]).then((r) => r.rows.map((x) => x.id as string));
    results.push(await settleRun(api, c, '500 campaigns', await live(500), GIFTS, 16));
    results.push(await settleRun(api, c, '500 campaigns', await live(500), GIFTS, 64));
    // Every gift to one campaign: its row lock serialises the settlements.
    results.push(await settleRun(api, c, 'one campaign', await live(1), Math.round(GIFTS / 2), 64));
  } finally {
    await api.stop();
    await c.end();
  }
  const ledger = checkLedger(moneyUrl);
  log(`check-ledger (${ledger.seconds.toFixed(1)} s): ${ledger.line}`);
  return { results, ledger };
}

/** Due jobs not yet run, on either engine (the old `jobs` table, or graphile-worker's). */
async function pendingJobs(c: Client): Promise<number> {
  const old = (await c.query(`select to_regclass('public.jobs') is not null as old`)).rows[0].old;
  const sql = old
    ? 'select count(*)::int n from jobs where done_at is null and attempts < max_attempts and run_at <= now()'
    : 'select count(*)::int n from graphile_worker.jobs where attempts < max_attempts and run_at <= now()';
  return (await c.query(sql)).rows[0].n;
}

/**
 * The job engine: a small database of its own, the API with jobs off plus one
 * `npm run worker` process, one settlement run; events/s while the worker competes for the cores,
 * then the lag from the last webhook's answer until every job it caused (events fanned out to
 * subscribers, notification mails, leaderboard) has run.
 */
async function jobsBench(base: string) {
  const url = urlOf(base, 'cf_jobs_bench');
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query('drop database if exists cf_jobs_bench with (force)');
  await admin.query('create database cf_jobs_bench');
  await admin.end();
  const handle = await connectDatabase(parseConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', DATABASE_URL: url }), { log: () => undefined });
  await ensureSeeded(handle.db, Number(process.env.BENCH_JOBS_CAMPAIGNS ?? 2000), log);
  await handle.db.raw('update fundraisers set raised_cents = 0, tips_cents = 0, donation_count = 0, donor_count = 0, goal_reached_at = null');
  await handle.close();
  const c = new Client({ connectionString: url });
  await c.connect();
  const api = await startApi(url);
  const worker = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: path.resolve(__dirname, '..'), stdio: ['ignore', 'ignore', 'inherit'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: url, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
  });
  try {
    const live = (await c.query(`select id from fundraisers where slug like 'bench-%' and status = 'active' and visibility = 'public'
      and deleted_at is null order by random() limit 200`)).rows.map((x) => x.id as string);
    const r = await settleRun(api, c, 'jobs', live, Number(process.env.BENCH_JOBS_GIFTS ?? 1000), 16);
    const t0 = performance.now();
    let left = await pendingJobs(c);
    const atEnd = left;
    while (left > 0 && performance.now() - t0 < 600_000) {
      await new Promise((res) => setTimeout(res, 50));
      left = await pendingJobs(c);
    }
    const lag = (performance.now() - t0) / 1000;
    log(`jobs: ${r.rate.toFixed(0)} events/s (p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms) with the worker running; ` +
      `${atEnd} due jobs left when the last webhook answered, all run ${lag.toFixed(2)} s later; model ${r.problems.length ? r.problems.join('; ') : 'exact'}`);
  } finally {
    worker.kill('SIGTERM');
    await api.stop();
    await c.end();
  }
}

async function main() {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('set DATABASE_URL (the bench databases are created on that server)');
  const mode = process.argv[2] ?? 'all';
  if (mode === 'jobs') return jobsBench(base);
  fs.mkdirSync(OUT, { recursive: true });
  const { baseUrl, moneyUrl } = await moneyDatabases(base, CAMPAIGNS, log);
  const file = (n: string) => path.join(OUT, `money-${n}.json`);
  if (mode === 'all' || mode === 'settle') fs.writeFileSync(file('settle'), JSON.stringify(await settleBench(moneyUrl), null, 1));
  if (mode === 'all' || mode === 'reads') fs.writeFileSync(file('reads'), JSON.stringify(await runReads(baseUrl, moneyUrl, log), null, 1));
  if (mode !== 'seed') {
    const read = (n: string) => (fs.existsSync(file(n)) ? JSON.parse(fs.readFileSync(file(n), 'utf8')) : null);
    writeMoneySection(read('settle'), read('reads'), { baseUrl, moneyUrl });
    log('wrote bench/results/settle.md');
  }
}

void runBench('money', 3600, () => main());
