/**
 * A viral campaign: one campaign's slug read at full speed (autocannon, 64
 * connections, each request its own client address) against the real API process (`npm start`,
 * READ_CACHE on), first alone, then while 20 gifts a second settle on the same campaign through
 * signed sandbox webhooks. Reports throughput and p99 of the read in both phases, and for each
 * gift the delay from sending its webhook until a guest read of the campaign shows it.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/viral.ts
 *   VIRAL_SECONDS=15 VIRAL_RATE=20 VIRAL_CONNECTIONS=64 BENCH_CAMPAIGNS=100000 BENCH_DB=cf_bench
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { Client } from 'pg';
import Stripe from 'stripe';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { BENCH_DB, benchDatabaseUrl, ensureSeeded } from './db';
import { runLoad, type LoadResult } from './load-gen';
import { startApi, WEBHOOK_SECRET, type Api } from './money-api';
import { writeLatestRun } from './results';

const N = Number(process.env.BENCH_CAMPAIGNS ?? 100_000);
const SECONDS = Number(process.env.VIRAL_SECONDS ?? 15);
const RATE = Number(process.env.VIRAL_RATE ?? 20);
const CONNECTIONS = Number(process.env.VIRAL_CONNECTIONS ?? 64);
const log = (m: string) => process.stdout.write(`[viral] ${m}\n`);
const signer = new Stripe('sk_test_bench_offline');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

interface Pending {
  donation_id: string;
  pi: string;
  amount: number;
}

async function createGifts(api: Api, fundraiserId: string, n: number): Promise<Pending[]> {
  const out: Pending[] = [];
  for (let i = 0; i < n; i += 1) {
    const amount = 500 + i;
    const res = await fetch(`${api.base}/api/v1/payments/create-intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.200.${i >> 8}.${i & 255}` },
      body: JSON.stringify({ fundraiser_id: fundraiserId, amount_cents: amount, tip_cents: 0, donor_email: `viral-${i}-${randomUUID().slice(0, 6)}@bench.test` }),
    });
    const body = (await res.json()) as { data?: { donation_id: string; payment_intent_id: string } };
    if (res.status !== 201 || !body.data) throw new Error(`create-intent answered ${res.status} ${JSON.stringify(body)}`);
    out.push({ donation_id: body.data.donation_id, pi: body.data.payment_intent_id, amount });
  }
  return out;
}

function signedSuccess(g: Pending): { payload: string; sig: string } {
  const payload = JSON.stringify({
    id: `evt_viral_${randomUUID().replace(/-/g, '')}`, object: 'event', api_version: '2025-01-27.acacia',
    created: Math.floor(Date.now() / 1000), type: 'payment_intent.succeeded', livemode: false, pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: {
      object: {
        id: g.pi, object: 'payment_intent', amount: g.amount, amount_received: g.amount, currency: 'usd', status: 'succeeded',
        latest_charge: `ch_${g.pi.replace(/^pi_/, '')}`, metadata: { kind: 'donation', donation_id: g.donation_id },
      },
    },
  });
  return { payload, sig: signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
}

let watcherIp = 0;

/** A guest read of the campaign's donation count, each from its own address (the public limiter is per IP). */
async function donationCount(api: Api, slug: string): Promise<number> {
  watcherIp += 1;
  const res = await fetch(`${api.base}/api/v1/fundraisers/slug/${slug}`, {
    headers: { 'x-forwarded-for': `10.250.${(watcherIp >> 8) & 255}.${watcherIp & 255}` },
  });
  if (res.status !== 200) throw new Error(`slug read answered ${res.status}`);
  return ((await res.json()) as { data: { donation_count: number } }).data.donation_count;
}

/**
 * Settles `gifts` at RATE a second (each webhook sent on its slot, not waiting for the one
 * before) while a watcher reads the campaign as a guest every few ms; answers each gift's delay
 * from sending its webhook to the first read showing it (gift k shows when donation_count
 * reaches the starting count + k: settlements of one campaign are serialised by its row lock).
 */
/** The API process's CPU time so far (ms), from /proc (Linux). */
function readCpu(api: Api): () => number {
  return () => {
    try {
      const stat = fs.readFileSync(`/proc/${api.child.pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(f[11]) + Number(f[12])) * 10;
    } catch {
      return NaN;
    }
  };
}

async function settleAndWatch(api: Api, slug: string, gifts: Pending[], startCount: number, cpu: () => number) {
  const cpu0 = cpu();
  const sentAt: number[] = [];
  const answeredAt: number[] = [];
  const shownAt: number[] = [];
  const webhookMs: number[] = [];
  let failures = 0;
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const seen = (await donationCount(api, slug).catch(() => startCount)) - startCount;
      const now = performance.now();
      for (let k = 0; k < Math.min(seen, gifts.length); k += 1) shownAt[k] ??= now;
      await sleep(5);
    }
  })();
  const signed = gifts.map(signedSuccess);
  const t0 = performance.now();
  await Promise.all(
    signed.map(async (s, i) => {
      const at = t0 + (i * 1000) / RATE;
      await sleep(Math.max(0, at - performance.now()));
      sentAt[i] = performance.now();
      const res = await fetch(`${api.base}/api/v1/webhooks/stripe`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': s.sig }, body: s.payload,
      });
      await res.arrayBuffer();
      answeredAt[i] = performance.now();
      webhookMs.push(answeredAt[i]! - sentAt[i]!);
      if (res.status !== 200) failures += 1;
    }),
  );
  const deadline = performance.now() + 5_000;
  while (shownAt.filter((x) => x !== undefined).length < gifts.length && performance.now() < deadline) await sleep(10);
  watching = false;
  await watcher;
  // Gifts land in an order the row lock picks: the k-th shown gift is matched with the k-th sent one.
  const delays = gifts.map((_, k) => (shownAt[k] === undefined ? Infinity : shownAt[k]! - sentAt[k]!)).sort((a, b) => a - b);
  // From the webhook's 200 (the settlement has committed by then) to the first read showing the gift; 0 if shown first.
  const afterCommit = gifts.map((_, k) => (shownAt[k] === undefined ? Infinity : Math.max(0, shownAt[k]! - answeredAt[k]!))).sort((a, b) => a - b);
  webhookMs.sort((a, b) => a - b);
  return { afterCommit, delays, webhookMs, failures, seconds: (performance.now() - t0) / 1000, cpuMsPerGift: (cpu() - cpu0) / gifts.length };
}

async function main() {
  const databaseUrl = await benchDatabaseUrl();
  if (!databaseUrl) throw new Error('set DATABASE_URL (the bench database is created on that server)');
  const handle = await connectDatabase(parseConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', DATABASE_URL: databaseUrl }));
  await ensureSeeded(handle.db, N, log);
  await handle.close();
  const c = new Client({ connectionString: databaseUrl });
  await c.connect();
  const { rows } = await c.query(`select id, slug from fundraisers where slug like 'bench-%' and status = 'active' and visibility = 'public'
    and deleted_at is null and (end_date is null or end_date > current_date + 30) order by random() limit 1`);
  const campaign = rows[0] as { id: string; slug: string };
  const api = await startApi(databaseUrl);
  const path1 = [`/api/v1/fundraisers/slug/${campaign.slug}`];
  try {
    const perPhase = Math.ceil(SECONDS * RATE);
    const gifts = await createGifts(api, campaign.id, perPhase * 2);
    // As the sandbox's confirm would: the PaymentIntents succeeded (the settlement fetches the fee from them).
    await c.query(`update sandbox_objects set data = data || '{"status":"succeeded"}'::jsonb where id = any($1)`, [gifts.map((g) => g.pi)]);
    log(`campaign ${campaign.slug}; ${gifts.length} pending gifts created`);
    // The settling alone first: what a gift costs the process, and its delay without read load.
    const alone = await settleAndWatch(api, campaign.slug, gifts.slice(perPhase), await donationCount(api, campaign.slug), readCpu(api));
    log(`settling alone: webhook p50 ${pct(alone.webhookMs, 50).toFixed(0)} ms, p99 ${pct(alone.webhookMs, 99).toFixed(0)} ms; ` +
      `visible p50 ${pct(alone.delays, 50).toFixed(0)} ms, max ${alone.delays.at(-1)!.toFixed(0)} ms; API CPU ${alone.cpuMsPerGift.toFixed(1)} ms per gift`);
    await runLoad(api.base, path1, { connections: CONNECTIONS, seconds: 2 });
    const quiet = await runLoad(api.base, path1, { connections: CONNECTIONS, seconds: SECONDS });
    log(`reads alone: ${quiet.rps.toFixed(0)} req/s, p50 ${quiet.p50} ms, p99 ${quiet.p99} ms, errors ${quiet.errors}`);
    const startCount = await donationCount(api, campaign.slug);
    const [busy, settle] = await Promise.all([
      runLoad(api.base, path1, { connections: CONNECTIONS, seconds: SECONDS }),
      settleAndWatch(api, campaign.slug, gifts.slice(0, perPhase), startCount, readCpu(api)),
    ]);
    log(`reads while settling: ${busy.rps.toFixed(0)} req/s, p50 ${busy.p50} ms, p99 ${busy.p99} ms, errors ${busy.errors}`);
    log(`gift visible after: p50 ${pct(settle.delays, 50).toFixed(0)} ms, p99 ${pct(settle.delays, 99).toFixed(0)} ms, max ${settle.delays.at(-1)!.toFixed(0)} ms; webhook failures ${settle.failures}`);
    log(`gift visible after its webhook answered: p50 ${pct(settle.afterCommit, 50).toFixed(0)} ms, p99 ${pct(settle.afterCommit, 99).toFixed(0)} ms, max ${settle.afterCommit.at(-1)!.toFixed(0)} ms`);
    writeSection(campaign.slug, quiet, busy, settle, alone);
  } finally {
    await api.stop();
    await c.end();
  }
}

type Settled = Awaited<ReturnType<typeof settleAndWatch>>;

function writeSection(slug: string, quiet: LoadResult, busy: LoadResult, s: Settled, alone: Settled) {
  const cpu = os.cpus();
  const within1s = s.delays.filter((d) => d <= 1000).length;
  const row = (name: string, r: LoadResult) => `| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} |`;
  const section = [
    '<!-- viral:start -->',
    '## Viral campaign: one slug read at full speed while 20 gifts a second settle on it',
    '',
    `Run ${new Date().toISOString()} with \`npx tsx bench/viral.ts\` on ${cpu.length} x ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}, ` +
      `database ${BENCH_DB} (${N} seeded campaigns), load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} at the end. ` +
      `The API process as \`npm start\` runs it (READ_CACHE on, jobs off, sandbox processor). autocannon, ${CONNECTIONS} connections, ` +
      `${SECONDS} s per phase, every request its own X-Forwarded-For, all on \`/fundraisers/slug/${slug}\`. The settling phase ` +
      `sends ${s.delays.length} signed \`payment_intent.succeeded\` webhooks at ${RATE}/s for gifts created before the phases.`,
    '',
    '| slug read | req/s | p50 ms | p99 ms | errors |',
    '|---|---|---|---|---|',
    row('alone', quiet),
    row(`while ${RATE} gifts/s settle`, busy),
    '',
    `p99 with settling / p99 alone: **${(busy.p99 / Math.max(quiet.p99, 0.001)).toFixed(2)}x** (target <= 2x).`,
    '',
    `Delay from sending a gift's webhook to the first guest read showing it (a watcher reads every ~5 ms): p50 ` +
      `${pct(s.delays, 50).toFixed(0)} ms, p99 ${pct(s.delays, 99).toFixed(0)} ms, max ${s.delays.at(-1)!.toFixed(0)} ms; ` +
      `**${within1s} of ${s.delays.length}** within 1 s (target: all). The webhook itself answered in p50 ` +
      `${pct(s.webhookMs, 50).toFixed(0)} ms, p99 ${pct(s.webhookMs, 99).toFixed(0)} ms; ${s.failures} non-200.`,
    '',
    `From the webhook's 200 (the settlement committed) to the first read showing the gift: p50 ` +
      `${pct(s.afterCommit, 50).toFixed(0)} ms, p99 ${pct(s.afterCommit, 99).toFixed(0)} ms, max ${s.afterCommit.at(-1)!.toFixed(0)} ms ` +
      `(**${s.afterCommit.filter((d) => d <= 1000).length} of ${s.afterCommit.length}** within 1 s).`,
    '',
    `The same ${alone.delays.length} gifts' worth of settling without the read load (before the read phases): webhook p50 ` +
      `${pct(alone.webhookMs, 50).toFixed(0)} ms, p99 ${pct(alone.webhookMs, 99).toFixed(0)} ms; visible after p50 ` +
      `${pct(alone.delays, 50).toFixed(0)} ms, max ${alone.delays.at(-1)!.toFixed(0)} ms; the API process spent ` +
      `${alone.cpuMsPerGift.toFixed(1)} ms of CPU per settled gift (watcher reads included), against ` +
      `${((1000 * 1000) / Math.max(quiet.rps, 1)).toFixed(0)} us per cached read.`,
    '<!-- viral:end -->',
  ].join('\n');
  writeLatestRun('viral', {
    title: 'Viral campaign: one slug read at full speed while 20 gifts a second settle on it (`npx tsx bench/viral.ts`)',
    summary: `${busy.rps.toFixed(0)} req/s while settling vs ${quiet.rps.toFixed(0)} alone, p99 ${busy.p99} vs ${quiet.p99} ms`,
    body: section.replace('## Viral campaign: one slug read at full speed while 20 gifts a second settle on it', '## Latest run'),
  });
  log('wrote bench/results/viral.md');
}

main().catch((err) => {
  process.stderr.write(`viral bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
