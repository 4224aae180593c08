import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { createDb, type Db } from '../../src/db/knex';
import { parseLsn } from '../../src/db/replica-probe';
import { LocalIdentityProvider } from '../../src/integrations/idp/local/local-provider';
import { checkLedger } from '../../src/modules/integrity';
import { startCluster, until, type Cluster } from '../../scripts/cluster/topology';
import { clusterSuite } from './suite';
import { createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { freePort, machineSlowdown, ROOT } from '../helpers/processes';
import { paymentSucceeded, signedEvent, type Gift } from '../helpers/gift-events';
import { startSmtpCapture, type SmtpCapture } from '../helpers/smtp';
import { Load } from './load';

/**
 * The local production topology (npm run cluster: HAProxy
 * checking /readyz, 3 API processes, 2 workers, PgBouncer in transaction mode, a primary and its
 * streaming replica, Redis), started once, under a steady mix of guest reads, signed-in reads and gifts.
 * Deadlines are generous (a busy machine), there are no throughput thresholds.
 */
const suite = clusterSuite();

const API = 3;
const WORKERS = 2;
let cluster: Cluster;
let db: Db;
let owner: TestUser;
let campaign: FundraiserRow;
let ownerBearer: string;
let secret: string;
let smtp: SmtpCapture;

const loadTarget = () => ({ url: cluster.url, slug: campaign.slug, fundraiserId: campaign.id, bearer: ownerBearer, webhookSecret: secret });

/** Waits until every gift the processor reported paid is paid in the database. */
async function expectPaid(gifts: Gift[]): Promise<void> {
  const ids = gifts.map((g) => g.donation_id);
  await until('every acknowledged gift to be paid', async () => {
    const rows = await db('donations').whereIn('id', ids).select('id', 'status');
    return rows.length === ids.length && rows.every((r) => r.status === 'paid');
  }, 30_000);
}

/** A client address of its own for each direct request, so per-address limits never refuse the test's own reads. */
const ip = () => `198.18.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
const owned = () => ({ Authorization: `Bearer ${ownerBearer}` });

/** A request straight to API process i (HAProxy bypassed), as from a client behind the balancer. */
async function call(i: number, path: string, init: RequestInit = {}): Promise<{ status: number; body: any; etag: string | null }> {
  const res = await fetch(`${cluster.apiUrl(i)}${path}`, { ...init, headers: { 'X-Forwarded-For': ip(), ...(init.headers as Record<string, string>) }, signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  const etag = res.headers.get('etag');
  try {
    return { status: res.status, body: JSON.parse(text), etag };
  } catch {
    return { status: res.status, body: text, etag };
  }
}

/** API process i's Prometheus scrape (loopback needs no METRICS_TOKEN). */
const scrape = async (i: number) => (await fetch(`${cluster.apiUrl(i)}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();

/** One sample of a counter family (0 when absent), e.g. metric(text, 'db_reads_total', 'target="replica"'). */
function metric(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Waits until the replica has replayed campaign `id` with `title`. */
async function replicaHas(id: string, title: string): Promise<void> {
  await until(`the replica to replay campaign ${id}`, async () => (await cluster.replicaSql<{ title: string }>(`select title from fundraisers where id = '${id}'`))[0]?.title === title, 30_000);
}

/**
 * Waits until every API process has served a guest read from the replica (db_reads_total), reading
 * the load's campaign as a guest through each meanwhile (each gift the load settles drops it from
 * the read cache, so the next read is a fill: a database read). Answers the reads that were not 200.
 */
async function replicaUsedByEveryProcess(): Promise<Array<{ status: number; body: unknown }>> {
  const start = await Promise.all(Array.from({ length: API }, async (_, i) => metric(await scrape(i), 'db_reads_total', 'target="replica"')));
  const bad: Array<{ status: number; body: unknown }> = [];
  for (let i = 0; i < API; i += 1) {
    await until(`api${i} to read from the replica`, async () => {
      const read = await call(i, `/api/v1/fundraisers/${campaign.id}`);
      if (read.status !== 200) bad.push(read);
      return metric(await scrape(i), 'db_reads_total', 'target="replica"') > start[i]!;
    }, 60_000, 200);
  }
  return bad;
}

suite('the cluster under load', () => {
  beforeAll(async () => {
    smtp = await startSmtpCapture();
    // The settings a user would have in their shell: the cluster passes them to every app.
    cluster = await startCluster({ api: API, workers: WORKERS, userEnv: { PATH: process.env.PATH, HOME: process.env.HOME, SMTP_URL: smtp.url, MAIL_FROM: 'cluster-test@example.test' } });
    db = createDb(cluster.env.DATABASE_DIRECT_URL!, { max: 4 });
    secret = cluster.env.STRIPE_WEBHOOK_SECRET!;
    owner = await createUser(db);
    campaign = await createFundraiser(db, owner.id, { goal_amount_cents: 100_000_000 });
    ownerBearer = (await new LocalIdentityProvider(db, cluster.url).issueTokensForUser(owner.id)).idToken;
  }, 600_000);

  afterAll(async () => {
    await db?.destroy();
    await cluster?.stop();
    await smtp?.close();
  }, 120_000);

  test("a sign-up's verification mail goes out through the user's SMTP_URL, from their MAIL_FROM", async () => {
    const email = `signup-${randomUUID().slice(0, 8)}@cluster.test`;
    const res = await fetch(`${cluster.url}/api/v1/idp/signup`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip() }, body: JSON.stringify({ email, password: 'cluster-signup-1' }) });
    expect(res.status).toBeLessThan(300);
    const mail = await until('the verification mail at the capture server', () => smtp.messages.find((m) => m.envelopeTo.includes(email)), 60_000, 100);
    expect({ from: mail.from, subject: mail.subject }).toEqual({ from: 'cluster-test@example.test', subject: 'Verify your email address' });
  });

  test('a rolling restart of every API process (drained on HAProxy, SIGTERM, exit, start, seen up) fails no request', async () => {
    const before = Array.from({ length: API }, (_, i) => cluster.apiPid(i));
    const load = new Load(loadTarget()).start(4);
    try {
      await until('some load', () => load.ok > 10, 60_000);
      await cluster.rollingRestart();
    } finally {
      await load.stop();
    }
    const after = Array.from({ length: API }, (_, i) => cluster.apiPid(i));
    expect(after.filter((pid, i) => pid === null || pid === before[i])).toEqual([]);
    expect(load.failures).toEqual([]);
    expect(load.ok).toBeGreaterThan(0);
    await expectPaid(load.paid);
  });

  test('kill -9 of one API process: only requests in flight on it fail, HAProxy drops it, it is started again and HAProxy sees it UP, no paid gift is lost', async () => {
    const load = new Load(loadTarget()).start(4);
    const killed = cluster.apiPid(1);
    let killedAt = 0;
    try {
      await until('some load', () => load.ok > 20, 60_000);
      await cluster.killApi(1);
      // Dead from here: a request started later never reached it (HAProxy retries a refused connection).
      killedAt = Date.now();
      // Nobody but the cluster's supervision starts it again.
      await until('a new api1', () => cluster.apiPid(1) !== null && cluster.apiPid(1) !== killed, 60_000);
      await cluster.waitApiState(1, 'UP', 180_000);
      const after = load.ok;
      await until('load after it is back', () => load.ok > after + 20, 60_000);
    } finally {
      await load.stop();
    }
    // Only what was in flight on the killed process when it died: started before its death, at most one per loop.
    expect(load.failures.filter((f) => f.startedAt > killedAt)).toEqual([]);
    expect(load.failures.length).toBeLessThanOrEqual(4);
    await expectPaid(load.paid);
  });

  test('kill -9 of every worker in the middle of jobs: new workers finish every job, each effect once', async () => {
    // Gifts whose settlement queues jobs (receipt mail, the owner's notification, ...).
    const gifts: Gift[] = [];
    for (let i = 0; i < 12; i += 1) {
      const res = await fetch(`${cluster.url}/api/v1/payments/create-intent`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `203.0.113.${i + 1}` },
        body: JSON.stringify({ fundraiser_id: campaign.id, amount_cents: 2_000 + i, donor_email: `worker-kill-${i}-${randomUUID().slice(0, 6)}@cluster.test` }),
      });
      expect(res.status).toBe(201);
      gifts.push(((await res.json()) as { data: Gift }).data);
    }
    const since = new Date(Date.now() - 1000);
    for (const g of gifts) {
      const { payload, signature } = signedEvent('payment_intent.succeeded', paymentSucceeded(g), secret);
      const ack = await fetch(`${cluster.url}/api/v1/webhooks/stripe`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature }, body: payload });
      expect(ack.status).toBe(200);
    }
    // Both workers die while holding jobs: nothing but the new workers can finish them.
    await until('a job locked by a worker', async () => Number((await db.raw(`select count(*)::int as n from graphile_worker._private_jobs where locked_by is not null`)).rows[0].n) > 0, 60_000, 20);
    const killed = Array.from({ length: WORKERS }, (_, i) => cluster.workerPid(i));
    await Promise.all(Array.from({ length: WORKERS }, (_, i) => cluster.killWorker(i)));
    const locked = Number((await db.raw(`select count(*)::int as n from graphile_worker._private_jobs where locked_by is not null`)).rows[0].n);
    // Started again by the cluster's supervision, nobody else.
    await until('new workers', () => killed.every((pid, i) => cluster.workerPid(i) !== null && cluster.workerPid(i) !== pid), 60_000);
    // graphile-worker alone would leave them locked for 4 hours.
    await until('every job to complete', async () => Number((await db.raw(`select count(*)::int as n from graphile_worker.jobs where run_at < now() + interval '1 minute' and attempts < max_attempts`)).rows[0].n) === 0, 120_000, 250);
    expect(locked).toBeGreaterThan(0);
    await expectPaid(gifts);
    // Each effect once: one of each mail per donor, one of each notification per gift.
    const donors = gifts.map((g) => g.donation_id);
    const mails = await db('mail_outbox').where('created_at', '>=', since).whereLike('to', 'worker-kill-%').select('to', 'template');
    const byMail = new Map<string, number>();
    for (const m of mails) byMail.set(`${m.to} ${m.template}`, (byMail.get(`${m.to} ${m.template}`) ?? 0) + 1);
    expect([...byMail.values()].filter((n) => n !== 1)).toEqual([]);
    expect(new Set(mails.map((m) => m.to)).size).toBe(gifts.length);
    // A mail a worker was sending when killed (its connection reset mid-message, in smtp.dropped)
    // was never accepted: the new workers sent it again, so every donor's mail reached the server.
    const delivered = new Set(smtp.messages.flatMap((m) => m.envelopeTo));
    expect(mails.filter((m) => !delivered.has(m.to))).toEqual([]);
    const notes = await db('notifications').where({ user_id: owner.id }).where('created_at', '>=', since).select('type', 'metadata');
    const byNote = new Map<string, number>();
    for (const n of notes) byNote.set(`${n.type} ${JSON.stringify(n.metadata)}`, (byNote.get(`${n.type} ${JSON.stringify(n.metadata)}`) ?? 0) + 1);
    expect([...byNote.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(donors).toHaveLength(gifts.length);
  });

  test('an edit through one process is on a guest read through every other within 1 s', async () => {
    const f = await createFundraiser(db, owner.id, { title: `Before ${randomUUID().slice(0, 6)}` });
    // Made straight in the primary: a guest read may be answered by the replica (within its lag bound) until it has replayed it.
    await replicaHas(f.id, f.title);
    const read = (i: number) => call(i, `/api/v1/fundraisers/slug/${f.slug}`) as Promise<{ status: number; body: { data: { title: string } }; etag: string | null }>;
    // Every process has it cached first.
    for (let i = 0; i < API; i += 1) expect((await read(i)).status).toBe(200);
    for (let i = 0; i < API; i += 1) await read(i);
    const title = `After ${randomUUID().slice(0, 6)}`;
    // 1 s on an idle machine, stretched by how busy this one is (the mechanism, not the machine, is under test).
    const bound = Math.round(1_000 * machineSlowdown());
    const edit = await fetch(`${cluster.apiUrl(0)}/api/v1/fundraisers/${f.id}`, { method: 'PATCH', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ownerBearer}` }, body: JSON.stringify({ title }) });
    expect(edit.status).toBe(200);
    const editedAt = Date.now();
    const seenAfter: string[] = [];
    for (let i = 1; i < API; i += 1) {
      // Seen once on a machine at load 15 (api1 still showed the old title after 10 s, not reproduced
      // since): a failure says what the late process answers and what its read cache and replica did.
      await until(`api${i} to show the new title`, async () => (await read(i)).body.data.title === title, 30_000, 25).catch(async (err: Error) => {
        const late = await read(i);
        const counters = (await scrape(i)).split('\n').filter((l) => /^(read_cache|db_reads|redis_)/.test(l));
        const replica = await cluster.replicaSql<{ title: string }>(`select title from fundraisers where id = '${f.id}'`);
        throw new Error(`${err.message}: api${i} answers "${late.body.data?.title}" (etag ${late.etag}); replica has "${replica[0]?.title}"; ${counters.join('; ')}`);
      });
      seenAfter.push(`api${i} ${Date.now() - editedAt} ms`);
    }
    expect({ seenAfter, withinBound: Date.now() - editedAt <= bound }).toEqual({ seenAfter, withinBound: true });
  });

  test('read-your-writes with the replica paused: the writer reads the write through every process, guests read on; the replica stopped, reads go on; started, it is used again', async () => {
    const f = await createFundraiser(db, owner.id, { title: `Replica ${randomUUID().slice(0, 6)}` });
    await replicaHas(f.id, f.title);
    const replicaTitle = async () => (await cluster.replicaSql<{ title: string }>(`select title from fundraisers where id = '${f.id}'`))[0]?.title;
    const redis = new Redis(cluster.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
    const load = new Load(loadTarget()).start(4);
    let paused = false;
    try {
      // The replica is in use before anything happens to it, on every process.
      expect(await replicaUsedByEveryProcess()).toEqual([]);

      await cluster.replicaSql('select pg_wal_replay_pause()');
      paused = true;
      for (let w = 0; w < API; w += 1) {
        const title = `Paused ${w} ${randomUUID().slice(0, 6)}`;
        const edit = await call(w, `/api/v1/fundraisers/${f.id}`, { method: 'PATCH', headers: { 'Content-Type': 'application/json', ...owned() }, body: JSON.stringify({ title }) });
        expect(edit.status).toBe(200);
        // The writer's very next read, through each process (the writing one last): the write, at once.
        for (const r of [...Array.from({ length: API }, (_, k) => (w + 1 + k) % API)]) {
          const read = await call(r, `/api/v1/fundraisers/${f.id}`, { headers: owned() });
          expect({ via: `api${w} -> api${r}`, status: read.status, title: read.body.data?.title }).toEqual({ via: `api${w} -> api${r}`, status: 200, title });
        }
        // Not from the replica: it has not replayed the write. The write's position is shared
        // through Redis, past the replica's, so any process sends this caller to the primary even
        // before the change notification reaches it (the read cache's fence would, after it).
        expect(await replicaTitle()).not.toBe(title);
        const written = BigInt((await redis.get(`${cluster.env.RATE_LIMIT_PREFIX ?? 'rl:'}ryw:${owner.id}`)) ?? '0');
        const replayed = parseLsn((await cluster.replicaSql<{ lsn: string }>('select pg_last_wal_replay_lsn()::text as lsn'))[0]?.lsn) ?? 0n;
        expect(written > replayed).toBe(true);
      }
      // Guests read on, through every process and the balancer.
      for (let i = 0; i < API; i += 1) expect((await call(i, `/api/v1/fundraisers/${f.id}`)).status).toBe(200);
      expect((await fetch(`${cluster.url}/api/v1/fundraisers/slug/${f.slug}`, { headers: { 'X-Forwarded-For': ip() } })).status).toBe(200);

      // Stopped (fast shutdown: its sessions end under the processes' pools): reads go on, no 5xx.
      await cluster.stopReplica();
      paused = false;
      const stoppedAt = Date.now();
      let reads = 0;
      while (Date.now() - stoppedAt < 3_000 || reads < 3 * API) {
        const i = reads % API;
        const guest = await call(i, `/api/v1/fundraisers/${f.id}`);
        const signedIn = await call(i, `/api/v1/fundraisers/${f.id}`, { headers: owned() });
        expect({ guest: guest.status, signedIn: signedIn.status }).toEqual({ guest: 200, signedIn: 200 });
        reads += 1;
      }
      await cluster.startReplica();
      // Started again (replaying from where it stopped, no longer paused): used again, by every process.
      expect(await replicaUsedByEveryProcess()).toEqual([]);
    } finally {
      if (paused) await cluster.replicaSql('select pg_wal_replay_resume()').catch(() => undefined);
      await cluster.startReplica().catch(() => undefined);
      await load.stop();
      redis.disconnect();
    }
    expect(load.failures).toEqual([]);
    await expectPaid(load.paid);
  });

  test('a rate limit hit through the balancer across the processes lets exactly its cap through', async () => {
    // `strict` (5 a minute per client address, its bucket in Redis), on a request that changes
    // nothing: an unknown confirmation token answers 400 once let through.
    const CAP = 5;
    const load = new Load(loadTarget()).start(4);
    try {
      for (let attempt = 1; ; attempt += 1) {
        const before = await Promise.all(Array.from({ length: API }, (_, i) => scrape(i)));
        const client = `203.0.113.${200 + attempt}`;
        const answers = await Promise.all(
          Array.from({ length: 3 * CAP }, () =>
            fetch(`${cluster.url}/api/v1/privacy/requests/confirm`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': client },
              body: JSON.stringify({ token: `not-a-token-${randomUUID()}` }),
            }).then(async (r) => ({ status: r.status, limit: r.headers.get('ratelimit-limit'), retryAfter: r.headers.get('retry-after'), body: await r.text() })),
          ),
        );
        const after = await Promise.all(Array.from({ length: API }, (_, i) => scrape(i)));
        // A Redis command slower than its timeout sends a process to per-process buckets (a
        // deliberate fallback, docs/decisions/0011-outages-answer-503.md): that burst says nothing about the shared one.
        const switched = after.some((m, i) => metric(m, 'redis_circuit_switches_total', 'state="local"') !== metric(before[i]!, 'redis_circuit_switches_total', 'state="local"'));
        if (switched && attempt < 3) continue;
        expect(switched).toBe(false);
        expect(answers.map((a) => a.limit)).toEqual(answers.map(() => String(CAP)));
        const through = answers.filter((a) => a.status !== 429);
        expect(through.map((a) => a.status)).toEqual(Array.from({ length: CAP }, () => 400));
        const refused = answers.filter((a) => a.status === 429);
        expect(refused).toHaveLength(2 * CAP);
        for (const r of refused) expect(r.retryAfter).toMatch(/^\d+$/);
        // Spread over the processes: each refusal is counted by the process that answered it.
        const perProcess = after.map((m, i) => metric(m, 'rate_limit_refusals_total', 'limiter="strict"') - metric(before[i]!, 'rate_limit_refusals_total', 'limiter="strict"'));
        expect(perProcess.reduce((a, b) => a + b, 0)).toBe(2 * CAP);
        expect(perProcess.filter((n) => n > 0).length).toBeGreaterThan(1);
        break;
      }
    } finally {
      await load.stop();
    }
    expect(load.failures).toEqual([]);
    await expectPaid(load.paid);
  });

  test('the shuffled duplicate webhook storm, spread over the processes, ends exact with a clean check-ledger', async () => {
    const f = await createFundraiser(db, owner.id, { goal_amount_cents: 100_000_000 });
    const gifts: Gift[] = [];
    for (let i = 0; i < 30; i += 1) {
      const res = await fetch(`${cluster.url}/api/v1/payments/create-intent`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `192.0.2.${i + 1}` },
        body: JSON.stringify({ fundraiser_id: f.id, amount_cents: 1_000 + 37 * i, donor_email: `storm${i % 5}@cluster.test` }),
      });
      expect(res.status).toBe(201);
      gifts.push(((await res.json()) as { data: Gift }).data);
    }
    // Every gift paid, a third refunded in full; about 30% delivered twice; shuffled; 8 in flight.
    let seed = 25;
    const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    const events = gifts.flatMap((g, i) => {
      const ev = [signedEvent('payment_intent.succeeded', paymentSucceeded(g), secret)];
      if (i % 3 === 0) {
        const gross = g.amount_cents + g.tip_cents;
        ev.push(signedEvent('charge.refunded', { id: `ch_${g.payment_intent_id.replace(/^pi_/, '')}`, object: 'charge', amount: gross, amount_refunded: gross, refunded: true, currency: g.currency.toLowerCase(), payment_intent: g.payment_intent_id, metadata: { kind: 'donation', donation_id: g.donation_id } }, secret));
      }
      return ev;
    });
    const deliveries = [...events, ...events.filter(() => rand() < 0.3)];
    for (let i = deliveries.length - 1; i > 0; i -= 1) {
      const j = Math.floor(rand() * (i + 1));
      [deliveries[i], deliveries[j]] = [deliveries[j]!, deliveries[i]!];
    }
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < deliveries.length) {
          const d = deliveries[next++]!;
          const r = await fetch(`${cluster.url}/api/v1/webhooks/stripe`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': d.signature }, body: d.payload });
          statuses.push(r.status);
        }
      }),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const rows = new Map((await db('donations').whereIn('id', gifts.map((g) => g.donation_id))).map((r) => [r.id, r.status]));
    expect(gifts.map((g, i) => rows.get(g.donation_id) === (i % 3 === 0 ? 'refunded' : 'paid')).filter((ok) => !ok)).toEqual([]);
    const kept = gifts.filter((_, i) => i % 3 !== 0);
    const row = await db('fundraiser_counters').where({ id: f.id }).first('raised_cents', 'donation_count');
    expect({ raised: Number(row.raised_cents), count: Number(row.donation_count) }).toEqual({ raised: kept.reduce((s, g) => s + g.amount_cents, 0), count: kept.length });
    expect(await checkLedger(db)).toEqual([]);
  });
});

/**
 * `npm run cluster` as its user runs it (the script, its settings from the shell): a smaller
 * topology, started once the suite above has stopped its own. SIGHUP rolls the API processes
 * under a steady stream of guest reads; then the script is killed with SIGKILL and its reaper
 * stops everything it started.
 */
suite('npm run cluster', () => {
  let script: ChildProcess;
  let stdout = '';
  let mail: SmtpCapture;
  const lines = () => stdout.split('\n');
  const address = (name: string) => lines().find((l) => l.trim().startsWith(name))?.trim().slice(name.length).trim();

  beforeAll(async () => {
    mail = await startSmtpCapture();
    const port = await freePort();
    script = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CLUSTER_API: '2', CLUSTER_WORKERS: '1', CLUSTER_PORT: String(port), SMTP_URL: mail.url, MAIL_FROM: 'script@example.test', DATABASE_URL: 'postgres://not-used.invalid/db' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    script.stdout!.on('data', (d) => (stdout += d));
    script.stderr!.on('data', (d) => (stdout += d));
    await until('the cluster to be up', () => {
      if (script.exitCode !== null) throw new Error(`npm run cluster exited ${script.exitCode}: ${stdout.slice(-3000)}`);
      return stdout.includes('The cluster is up');
    }, 600_000, 250).catch((err: Error) => {
      throw new Error(`${err.message}: ${stdout.slice(-3000)}`);
    });
  }, 660_000);

  afterAll(async () => {
    if (script?.exitCode === null && script.signalCode === null) script.kill('SIGKILL');
    await mail?.close();
  });

  test("the user's settings reach the apps (a sign-up's mail through their SMTP_URL); their DATABASE_URL is named as not used", async () => {
    expect(stdout).toMatch(/not used \(the cluster sets them\): DATABASE_URL/);
    const email = `script-${randomUUID().slice(0, 8)}@cluster.test`;
    const res = await fetch(`${address('HAProxy (the API)')}/api/v1/idp/signup`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip() }, body: JSON.stringify({ email, password: 'cluster-signup-1' }) });
    expect(res.status).toBeLessThan(300);
    const got = await until('the verification mail', () => mail.messages.find((m) => m.envelopeTo.includes(email)), 60_000, 100);
    expect(got.from).toBe('script@example.test');
  });

  test('kill -HUP of the script restarts each API process in turn with no failed request', async () => {
    const url = address('HAProxy (the API)')!;
    const pid = Number(/kill -HUP (\d+)/.exec(stdout)?.[1]);
    expect(pid).toBe(script.pid);
    const failures: string[] = [];
    let ok = 0;
    let running = true;
    const loops = Array.from({ length: 3 }, async () => {
      while (running) {
        try {
          const res = await fetch(`${url}/api/v1/fundraisers`, { headers: { 'X-Forwarded-For': ip() }, signal: AbortSignal.timeout(60_000) });
          await res.text();
          if (res.status >= 500) failures.push(`${res.status}`);
          else ok += 1;
        } catch (err) {
          failures.push(String((err as Error).cause ?? err));
        }
      }
    });
    try {
      await until('some requests', () => ok > 10, 60_000);
      const from = stdout.length;
      process.kill(pid, 'SIGHUP');
      await until('the rolling restart to finish', () => {
        if (stdout.slice(from).includes('rolling restart failed')) throw new Error(stdout.slice(from));
        return stdout.slice(from).includes('rolling restart done');
      }, 600_000, 250);
      expect(stdout.slice(from).match(/api\d: restarted \(pid \d+\), UP/g)).toEqual([expect.stringContaining('api0'), expect.stringContaining('api1')]);
    } finally {
      running = false;
      await Promise.all(loops);
    }
    expect(failures).toEqual([]);
  });

  test('kill -9 of the script: within 10 s (on an idle machine) nothing it started runs and its folder is gone', async () => {
    const dir = address('Temporary folder')!;
    const alive = (p: number) => {
      try {
        process.kill(p, 0);
        return true;
      } catch {
        return false;
      }
    };
    const pids = [
      ...fs.readdirSync(path.join(dir, 'pids')).map(Number),
      ...['primary', 'replica'].map((d) => Number(fs.readFileSync(path.join(dir, d, 'postmaster.pid'), 'utf8').split('\n')[0])),
    ];
    // HAProxy, PgBouncer, Redis, 2 API processes, a worker, both postmasters.
    expect(pids.filter(alive)).toHaveLength(8);
    script.kill('SIGKILL');
    await until('everything to stop', () => pids.every((p) => !alive(p)) && !fs.existsSync(dir), 10_000 * machineSlowdown(), 250).catch(() => undefined);
    expect({ running: pids.filter(alive), folder: fs.existsSync(dir) }).toEqual({ running: [], folder: false });
  });
});
