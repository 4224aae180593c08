/**
 * The telethon bench: one campaign watched through its live stream (GET /fundraisers/{id}/live) by
 * many viewers while 20 gifts a second settle on it through signed webhooks; then the same with 3
 * API processes behind HAProxy (the cluster's configuration, scripts/cluster/proxy.ts). Reports:
 * whether every viewer got every donation event (none twice), the delay from each settlement's
 * commit (live_gifts.settled_at, taken in the committing trigger) to each viewer, the API's
 * resident memory before and after the streams opened (per stream), and the p99 of guest slug
 * reads of the campaign alone and while it all runs.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/telethon.ts
 *   TELETHON_VIEWERS=10000,9000 TELETHON_SECONDS=60 TELETHON_RATE=20 TELETHON_TOPOLOGIES=1,3 TELETHON_READ_CONNECTIONS=16 TELETHON_READ_RATE=500
 *   TELETHON_API_<NAME>=value sets <NAME> in the API processes' environment (TELETHON_API_NODE_OPTIONS="--require ./profiler.cjs", say)
 *
 * Slug reads are measured twice, alone and during: as fast as the API answers (autocannon's closed
 * loop, which saturates the process, so any other work shows as queueing) and at a steady
 * TELETHON_READ_RATE per second (an open loop: what a reader sees when the page is busy but the
 * API is not flooded).
 *
 * The viewers are a child process (bench/telethon-viewers.ts) started under `ulimit -n 20000`.
 * HAProxy holds two sockets per viewer, so through it about 9,000 viewers fit in 20,000 open files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import Stripe from 'stripe';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { freePort } from '../src/infra/free-port';
import { startProxy } from '../scripts/cluster/proxy';
import { startReaper } from '../scripts/cluster/reaper';
import { freshDatabase } from './db';
import { runLoad } from './load-gen';
import { steadyLoad } from './steady-load';
import { startApi, WEBHOOK_SECRET, type Api } from './money-api';
import { writeTelethon, type Inside, type Phase, type ViewerReport } from './telethon-report';
import { coresUsed, cpuSnapshot, type CpuSnapshot } from './proc-cpu';

/** Viewers per topology, in order ('10000,9000'); one number serves every topology. */
const VIEWER_COUNTS = (process.env.TELETHON_VIEWERS ?? '10000').split(',').map(Number);
const TOPOLOGIES = (process.env.TELETHON_TOPOLOGIES ?? '1,3').split(',').map(Number);
const viewersFor = (i: number) => VIEWER_COUNTS[Math.min(i, VIEWER_COUNTS.length - 1)]!;
const SECONDS = Number(process.env.TELETHON_SECONDS ?? 60);
const RATE = Number(process.env.TELETHON_RATE ?? 20);
const READ_CONNECTIONS = Number(process.env.TELETHON_READ_CONNECTIONS ?? 16);
const READ_RATE = Number(process.env.TELETHON_READ_RATE ?? 500);
const READ_SECONDS = Math.min(SECONDS / 3, 20);
/**
 * The viewers' reader runs at this niceness (0: as the API). It stands for thousands of other
 * machines; on 2 shared cores, 10 keeps it from taking the API's CPU (one process: slug reads at
 * 500/s 1.6x their p99 alone instead of 2.3x), but a starved reader leaves the streams' bytes
 * waiting in HAProxy's buffers and its own (three processes: commit -> viewer p99 1.09 s instead
 * of 0.95 s). Its waiting counts in the delays it measures either way.
 */
const VIEWERS_NICE = Number(process.env.TELETHON_VIEWERS_NICE ?? 0);
/** Extra settings for the API processes: TELETHON_API_X=v sets X=v. */
const apiEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('TELETHON_API_')).map(([k, v]) => [k.slice('TELETHON_API_'.length), v ?? '']));
const log = (m: string) => process.stdout.write(`[telethon] ${m}\n`);
const signer = new Stripe('sk_test_bench_offline');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rssMb = (pid: number | undefined) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

interface Pending { donation_id: string; pi: string; amount: number }


async function scrape(bases: string[]): Promise<Map<string, number>[]> {
  return Promise.all(bases.map(async (b) => {
    const text = await fetch(`${b}/metrics`).then((r) => r.text(), () => '');
    const out = new Map<string, number>();
    for (const line of text.split('\n')) {
      const m = /^([a-z_0-9]+(?:\{[^}]*\})?) ([0-9.eE+-]+|NaN)$/.exec(line);
      if (m) out.set(m[1]!, Number(m[2]));
    }
    return out;
  }));
}

/** Samples the processes once a second while `during` runs: pool waiters and event-loop delay (prom-client resets it per scrape). */
async function watchInside(bases: string[], during: Promise<unknown>): Promise<Inside> {
  const before = await scrape(bases);
  let done = false;
  void during.finally(() => (done = true));
  let lagMax = 0;
  const lags: number[] = [];
  let poolWaitingMax = 0;
  while (!done) {
    await sleep(1000);
    for (const m of await scrape(bases)) {
      lags.push((m.get('nodejs_eventloop_lag_p99_seconds') ?? 0) * 1000);
      lagMax = Math.max(lagMax, (m.get('nodejs_eventloop_lag_max_seconds') ?? 0) * 1000);
      poolWaitingMax = Math.max(poolWaitingMax, m.get('db_pool_connections{state="waiting"}') ?? 0);
    }
  }
  const after = await scrape(bases);
  const delta = (k: string) => after.reduce((s, m, i) => s + (m.get(k) ?? 0) - (before[i]!.get(k) ?? 0), 0);
  const ticks = delta('live_tick_seconds_count{phase="read"}');
  const writes = delta('live_tick_seconds_count{phase="write"}');
  // The smallest bucket holding 99% of the phase's writes.
  const buckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
  const writeP99Bucket = (buckets.find((b) => delta(`live_tick_seconds_bucket{le="${b}",phase="write"}`) >= 0.99 * writes) ?? Infinity) * 1000;
  lags.sort((a, b) => a - b);
  return {
    tickReadMs: (delta('live_tick_seconds_sum{phase="read"}') * 1000) / Math.max(1, ticks),
    tickWriteMs: (delta('live_tick_seconds_sum{phase="write"}') * 1000) / Math.max(1, writes),
    ticks,
    writeP99Bucket,
    lagP99Ms: lags[Math.max(0, Math.ceil(0.99 * lags.length) - 1)] ?? NaN,
    lagMaxMs: lagMax,
    poolWaitingMax,
  };
}

async function createGifts(base: string, fundraiserId: string, n: number, c: Client): Promise<Pending[]> {
  const out: Pending[] = [];
  for (let i = 0; i < n; i += 1) {
    const amount = 500 + (i % 1000);
    const res = await fetch(`${base}/api/v1/payments/create-intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.201.${(i >> 8) & 255}.${i & 255}` },
      body: JSON.stringify({ fundraiser_id: fundraiserId, amount_cents: amount, tip_cents: 0, donor_email: `t-${i}-${randomUUID().slice(0, 6)}@bench.test`, donor_name: `Viewer ${i}`, anonymous: i % 5 === 0 }),
    });
    const body = (await res.json()) as { data?: { donation_id: string; payment_intent_id: string } };
    if (res.status !== 201 || !body.data) throw new Error(`create-intent answered ${res.status} ${JSON.stringify(body)}`);
    out.push({ donation_id: body.data.donation_id, pi: body.data.payment_intent_id, amount });
  }
  await c.query(`update sandbox_objects set data = data || '{"status":"succeeded"}'::jsonb where id = any($1)`, [out.map((g) => g.pi)]);
  return out;
}

function signedSuccess(g: Pending): { payload: string; sig: string } {
  const payload = JSON.stringify({
    id: `evt_tele_${randomUUID().replace(/-/g, '')}`, object: 'event', api_version: '2025-01-27.acacia',
    created: Math.floor(Date.now() / 1000), type: 'payment_intent.succeeded', livemode: false, pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object: { id: g.pi, object: 'payment_intent', amount: g.amount, amount_received: g.amount, currency: 'usd', status: 'succeeded', latest_charge: `ch_${g.pi.replace(/^pi_/, '')}`, metadata: { kind: 'donation', donation_id: g.donation_id } } },
  });
  return { payload, sig: signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
}

/** Sends the webhooks at RATE a second, each on its slot; answers how many were not 200. */
async function settle(base: string, gifts: Pending[]): Promise<number> {
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(gifts.map(signedSuccess).map(async (s, i) => {
    await sleep(Math.max(0, t0 + (i * 1000) / RATE - performance.now()));
    const res = await fetch(`${base}/api/v1/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': s.sig }, body: s.payload }).catch(() => null);
    await res?.arrayBuffer();
    if (res?.status !== 200) failures += 1;
  }));
  return failures;
}


function startViewers(host: string, port: number, campaign: string, n: number, databaseUrl: string) {
  const script = path.join(__dirname, 'telethon-viewers.ts');
  const child: ChildProcess = spawn('bash', ['-c', `ulimit -n 20000 2>/dev/null; exec nice -n ${VIEWERS_NICE} "${process.execPath}" --import tsx "${script}" ${host} ${port} ${campaign} ${n} "${databaseUrl}"`], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const waiters: Array<(r: ViewerReport) => void> = [];
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      waiters.shift()?.(JSON.parse(line) as ViewerReport);
    }
  });
  const ask = (cmd: string) => new Promise<ViewerReport>((resolve) => {
    waiters.push(resolve);
    child.stdin!.write(`${cmd}\n`);
  });
  return { child, ask };
}


async function phase(databaseUrl: string, processes: number, VIEWERS: number): Promise<Phase> {
  const c = new Client({ connectionString: databaseUrl });
  await c.connect();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-telethon-'));
  const apis: Api[] = [];
  let proxyChild: ChildProcess | null = null;
  let viewers: ReturnType<typeof startViewers> | null = null;
  try {
    const owner = (await c.query(`insert into users (email, name, roles, email_verified, email_verified_at, status, profile_slug)
      values ($1, 'Telethon Host', '{user}', true, now(), 'active', $2) returning id`, [`host-${randomUUID()}@bench.test`, `host-${randomUUID().slice(0, 8)}`])).rows[0].id as string;
    const slug = `telethon-${randomUUID().slice(0, 8)}`;
    const campaign = (await c.query(`insert into fundraisers (owner_user_id, title, slug, summary, story_html, goal_amount_cents, currency, status, visibility, type, cover_image, approved_at)
      values ($1, 'Telethon', $2, 'A telethon', '<p>Live.</p>', 100000000, 'USD', 'active', 'public', 'personal', 'https://img.example.test/c.jpg', now()) returning id`, [owner, slug])).rows[0].id as string;
    for (let i = 0; i < processes; i++) apis.push(await startApi(databaseUrl, { LIVE_MAX_STREAMS: String(VIEWERS + 1000), READ_CACHE: 'true', SHUTDOWN_DRAIN_MS: '0', ...apiEnv }));
    let base = apis[0]!.base;
    if (processes > 1) {
      const port = await freePort();
      // The cluster's reaper stops HAProxy should this bench be killed.
      startReaper(dir);
      const proxy = await startProxy(dir, port, apis.map((a) => Number(new URL(a.base).port)));
      proxyChild = proxy.child;
      for (let i = 0; i < processes; i++) await proxy.waitApiState(i);
      base = proxy.url;
    }
    const slugPath = [`/api/v1/fundraisers/slug/${slug}`];
    const gifts = await createGifts(base, campaign, Math.ceil(SECONDS * RATE), c);
    // The bench's database is minutes old and autovacuum has not analysed it yet: with no statistics
    // the planner took the live reads' join for a scan of every paid gift (9 ms of Postgres each).
    // A database in service has them; so does this one from here.
    await c.query('analyze');
    await runLoad(base, slugPath, { connections: Math.max(1, READ_CONNECTIONS), seconds: 2 });
    const alone = await runLoad(base, slugPath, { connections: Math.max(1, READ_CONNECTIONS), seconds: READ_SECONDS });
    const steady = () => steadyLoad(base, slugPath, { rate: READ_RATE, seconds: READ_SECONDS });
    const steadyAlone = await steady();
    log(`${processes} process(es): slug reads alone ${alone.rps.toFixed(0)} req/s, p99 ${alone.p99} ms; at ${READ_RATE}/s p99 ${steadyAlone.p99} ms`);
    const rssBefore = apis.reduce((s, a) => s + rssMb(a.child.pid), 0);
    const u = new URL(base);
    viewers = startViewers(u.hostname, Number(u.port), campaign, VIEWERS, databaseUrl);
    const opening = performance.now();
    let status = await viewers.ask('status');
    while (status.open + status.refused < VIEWERS && performance.now() - opening < 300_000) {
      await sleep(1000);
      status = await viewers.ask('status');
    }
    const openSeconds = (performance.now() - opening) / 1000;
    await sleep(3000);
    const rssOpen = apis.reduce((s, a) => s + rssMb(a.child.pid), 0);
    log(`${status.open} streams open (${status.refused} refused) in ${openSeconds.toFixed(1)} s; RSS ${rssBefore.toFixed(0)} -> ${rssOpen.toFixed(0)} MB`);
    const groups = { api: apis.map((a) => a.child.pid!), haproxy: proxyChild ? [proxyChild.pid!] : [], viewers: [viewers.child.pid!], postgres: 'postgres', bench: [process.pid] };
    const marks: Array<[number, CpuSnapshot]> = [[performance.now(), cpuSnapshot(groups)]];
    const running = Promise.all([
      // Both read loads while the gifts settle, one after the other.
      READ_CONNECTIONS > 0
        ? (async () => {
          const closed = await runLoad(base, slugPath, { connections: READ_CONNECTIONS, seconds: READ_SECONDS });
          marks.push([performance.now(), cpuSnapshot(groups)]);
          const open = await steady();
          marks.push([performance.now(), cpuSnapshot(groups)]);
          return [closed, open] as const;
        })()
        : Promise.resolve([alone, steadyAlone] as const),
      settle(base, gifts),
    ]);
    const [[[during, steadyDuring], webhookFailures], inside] = await Promise.all([running, watchInside(apis.map((a) => a.base), running)]);
    marks.push([performance.now(), cpuSnapshot(groups)]);
    // Cores used by each part: during the closed-loop reads, the steady reads, and the gifts' remaining time.
    const cores = marks.slice(1).map(([t, snap], i) => coresUsed(marks[i]![1], snap, (t - marks[i]![0]) / 1000));
    log(`cores used (closed-loop reads | steady reads | gifts only): ${cores.map((c) => JSON.stringify(c)).join(' | ')}`);
    log(`inside: tick read ${inside.tickReadMs.toFixed(1)} ms avg over ${inside.ticks} ticks, write ${inside.tickWriteMs.toFixed(1)} ms avg (p99 <= ${inside.writeP99Bucket} ms), event-loop delay p99 ${inside.lagP99Ms.toFixed(0)} ms max ${inside.lagMaxMs.toFixed(0)} ms, pool waiters max ${inside.poolWaitingMax}`);
    await sleep(3000);
    const rssAfter = apis.reduce((s, a) => s + rssMb(a.child.pid), 0);
    const report = await viewers.ask('done');
    log(`${processes} process(es): deliveries ${report.deliveries}, missing ${report.missing}, dupes ${report.dupes}, commit->viewer p50 ${report.p50?.toFixed(0)} ms p99 ${report.p99?.toFixed(0)} ms max ${report.max?.toFixed(0)} ms; reads during p99 ${during.p99} ms; at ${READ_RATE}/s p99 ${steadyDuring.p99} ms`);
    return { cores, inside, processes, planned: VIEWERS, viewers: report, gifts: gifts.length, webhookFailures, rssBefore, rssOpen, rssAfter, alone, during, steadyAlone, steadyDuring, openSeconds };
  } finally {
    viewers?.child.kill('SIGKILL');
    proxyChild?.kill('SIGTERM');
    for (const a of apis) await a.stop();
    await c.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('set DATABASE_URL (a database cf_telethon is created on that server)');
  const databaseUrl = await freshDatabase(base, process.env.BENCH_DB ?? 'cf_telethon');
  const handle = await connectDatabase(parseConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', DATABASE_URL: databaseUrl }));
  await handle.close();
  const phases: Phase[] = [];
  for (const [i, p] of TOPOLOGIES.entries()) phases.push(await phase(databaseUrl, p, viewersFor(i)));
  writeTelethon(phases, { viewers: VIEWER_COUNTS, seconds: SECONDS, rate: RATE, readConnections: READ_CONNECTIONS, readSeconds: READ_SECONDS, readRate: READ_RATE, viewersNice: VIEWERS_NICE });
  log('wrote bench/results/telethon.md');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
