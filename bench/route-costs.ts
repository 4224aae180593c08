/**
 * For docs/operations/scaling.md: what one request of each main route costs, in API CPU and in
 * database time, on one process. CPU = user + system time of the server process from /proc over
 * the slice; database time = the growth of `pg_stat_database.active_time` of the bench database
 * (time its backends spent running statements), read after Postgres has flushed its statistics
 * (an idle backend flushes within PGSTAT_IDLE_INTERVAL, 10 s). Nothing else uses the database.
 *
 * Routes: the guest slug read and the guest list as read-cache hits; the same slug read with the
 * read cache off (an uncached guest read: what a miss, or a replica, serves); the signed-in slug
 * read; a gift start (`POST /payments/create-intent`, sandbox processor); a settlement (a signed
 * `payment_intent.succeeded` for each of those gifts).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/route-costs.ts
 *   COMPARE_SECONDS=10 BENCH_LOG_LEVEL=info (the request log npm start writes; silent by default)
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Client } from 'pg';
import Stripe from 'stripe';
import { freshDatabase, ensureSeeded } from './db';
import { runBench } from './deadline';
import { runLoad } from './load-gen';
import { startApi, WEBHOOK_SECRET } from './money-api';
import { cpuMsOf, startServedApp } from './served-app';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';

const SECONDS = Number(process.env.COMPARE_SECONDS ?? 10);
const CONNECTIONS = 64;
/** Writes at the concurrency a busy site sees; a webhook sender (Stripe) sends a few at once. */
const WRITERS = 16;
const log = (m: string) => process.stdout.write(`[costs] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const signer = new Stripe('sk_test_bench_offline');

interface Cost {
  route: string;
  requests: number;
  rps: number;
  cpuUs: number;
  dbUs: number;
  p50: number;
}

async function activeMs(c: Client): Promise<number> {
  return Number((await c.query('select active_time from pg_stat_database where datname = current_database()')).rows[0].active_time);
}

/** Runs `work` with CPU of `pid` and the database's active time measured around it (stats flushed). */
async function measure(c: Client, pid: number | undefined, route: string, work: () => Promise<{ requests: number; seconds: number; p50: number }>): Promise<Cost> {
  await sleep(11_000);
  const db0 = await activeMs(c);
  const cpu0 = cpuMsOf(pid);
  const r = await work();
  const cpu = cpuMsOf(pid) - cpu0;
  await sleep(11_000);
  const db = (await activeMs(c)) - db0;
  const cost = { route, requests: r.requests, rps: r.requests / r.seconds, cpuUs: (cpu * 1000) / r.requests, dbUs: (db * 1000) / r.requests, p50: r.p50 };
  log(`ROUTE ${route}: ${cost.requests} requests, ${cost.rps.toFixed(0)}/s, API CPU ${cost.cpuUs.toFixed(0)} us/request, database ${cost.dbUs.toFixed(0)} us/request, p50 ${cost.p50} ms, load ${os.loadavg()[0]!.toFixed(1)}`);
  return cost;
}

/** `count` calls of `one` at WRITERS at once; their time and median latency. */
async function writes(count: number, one: (i: number) => Promise<void>) {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await one(i);
        lat.push(performance.now() - t);
      }
    }),
  );
  lat.sort((a, b) => a - b);
  return { requests: count, seconds: (performance.now() - t0) / 1000, p50: Math.round(lat[Math.floor(lat.length / 2)] ?? 0) };
}

async function main() {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('set DATABASE_URL (a server whose pg_stat_database this bench may read)');
  const url = await freshDatabase(base, process.env.BENCH_DB ?? 'cf_bench_costs');
  const handle = await connectDatabase(parseConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', DATABASE_URL: url }), { statementTimeoutMs: 0 });
  await ensureSeeded(handle.db, 2000, log);
  const campaigns: Array<{ id: string; slug: string }> = (
    await handle.db.raw(`select id, slug from fundraisers where slug like 'bench-%' and deleted_at is null and visibility = 'public' and status = 'active' order by slug limit 200`)
  ).rows;
  await handle.close();
  const slugs = campaigns.map((r) => `/api/v1/fundraisers/slug/${r.slug}`);
  const list = [0, 0, 0, 20, 40].map((o) => `/api/v1/fundraisers?offset=${o}`);
  const c = new Client({ connectionString: url });
  await c.connect();
  const level = process.env.BENCH_LOG_LEVEL ?? 'silent';
  const cached = await startServedApp(url, { BENCH_LOG_LEVEL: level });
  const uncached = await startServedApp(url, { BENCH_LOG_LEVEL: level, READ_CACHE: 'false' });
  const api = await startApi(url, { LOG_LEVEL: level });
  const costs: Cost[] = [];
  try {
    const reads: Array<[string, typeof cached, string[], Record<string, string> | undefined]> = [
      ['guest slug read (read-cache hit)', cached, slugs, undefined],
      ['guest list (read-cache hit)', cached, list, undefined],
      ['guest slug read (uncached: read cache off)', uncached, slugs, undefined],
      ['signed-in slug read (credential check, cached guest bytes)', cached, slugs, { Authorization: `Bearer ${cached.token}` }],
    ];
    for (const [route, app, paths, headers] of reads) {
      const at = `http://127.0.0.1:${app.port}`;
      await runLoad(at, paths, { connections: CONNECTIONS, seconds: 3, headers }); // warm V8, fill the cache
      costs.push(await measure(c, app.child.pid, route, () => runLoad(at, paths, { connections: CONNECTIONS, seconds: SECONDS, headers })));
    }
    // Gifts sized to take about SECONDS at the rate the warm-up shows.
    let ip = 0;
    const gifts: Array<{ donation: string; pi: string; amount: number }> = [];
    const startGift = async (i: number) => {
      ip += 1;
      const amount = 500 + ((i * 7919) % 50_000);
      const res = await fetch(`${api.base}/api/v1/payments/create-intent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}` },
        body: JSON.stringify({ fundraiser_id: campaigns[i % campaigns.length]!.id, amount_cents: amount, tip_cents: 0, donor_email: `cost-${i}@bench.test` }),
      });
      const body = (await res.json()) as { data?: { donation_id: string; payment_intent_id: string } };
      if (res.status !== 201 || !body.data) throw new Error(`create-intent answered ${res.status} ${JSON.stringify(body)}`);
      gifts.push({ donation: body.data.donation_id, pi: body.data.payment_intent_id, amount });
    };
    const warm = await writes(200, (i) => startGift(100_000 + i));
    const count = Math.max(200, Math.round((warm.requests / warm.seconds) * SECONDS));
    gifts.length = 0;
    costs.push(await measure(c, api.child.pid, 'gift start (POST /payments/create-intent)', () => writes(count, startGift)));
    const signed = gifts.map((g) => {
      const payload = JSON.stringify({
        id: `evt_cost_${randomUUID().replace(/-/g, '')}`, object: 'event', api_version: '2025-01-27.acacia', created: Math.floor(Date.now() / 1000),
        type: 'payment_intent.succeeded', livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null },
        data: { object: { id: g.pi, object: 'payment_intent', amount: g.amount, amount_received: g.amount, currency: 'usd', status: 'succeeded', latest_charge: `ch_${g.pi.replace(/^pi_/, '')}`, metadata: { kind: 'donation', donation_id: g.donation } } },
      });
      return { payload, sig: signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
    });
    costs.push(
      await measure(c, api.child.pid, 'settlement (signed payment_intent.succeeded, one gift)', () =>
        writes(signed.length, async (i) => {
          const res = await fetch(`${api.base}/api/v1/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signed[i]!.sig }, body: signed[i]!.payload });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
        }),
      ),
    );
    const paid = Number((await c.query(`select count(*) n from donations where status = 'paid' and donor_email like 'cost-%'`)).rows[0].n);
    log(`settled ${paid} of ${gifts.length} gifts`);
    log('| route | requests | req/s | API CPU us/request | database us/request | p50 ms |');
    for (const k of costs) log(`| ${k.route} | ${k.requests} | ${k.rps.toFixed(0)} | ${k.cpuUs.toFixed(0)} | ${k.dbUs.toFixed(0)} | ${k.p50} |`);
  } finally {
    cached.child.kill('SIGTERM');
    uncached.child.kill('SIGTERM');
    await api.stop();
    await c.end();
  }
}

void runBench('route-costs', 900, () => main());
