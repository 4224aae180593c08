import { randomUUID } from 'node:crypto';
import { stripeSignature } from './signatures';
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createDb, type Db } from '../../src/db/knex';
import { LocalIdentityProvider } from '../../src/integrations/idp/local/local-provider';
import { checkLedger } from '../../src/modules/integrity';
import { startCluster, until, type Cluster } from '../../scripts/cluster/topology';
import { clusterAdmin, clusterSuite } from './suite';
import { createUser } from '../helpers/auth';
import { startFakeServer, type FakeServer } from '../helpers/fake-http';
import { createFundraiser } from '../helpers/fundraisers';
import { chargeIdOf, paymentSucceeded, type Gift } from '../helpers/gift-events';
import { stripeEvent } from '../helpers/stripe';
import { webhookReceiver, type Received } from '../helpers/webhook-receiver';

/**
 * The worst day, rehearsed on the local production topology (npm run cluster) as
 * docs/operations/worst-days.md tells an operator to act: gifts A settle, pgBackRest takes an
 * incremental backup, gifts B settle, the primary's data folder is destroyed. Then
 * - `pgbackrest restore` to the latest point: A and B are there, the ledger exact, the replica
 *   cloned again from the restored primary, HAProxy serving reads and writes; verify-backup passes;
 * - `pgbackrest restore --type=time` to a moment after B began and before B was paid, then
 *   `recover-since` that moment: each B gift is paid once more from the processor's event list, counters, check-ledger and the
 *   day's reconciliation exact; the receiver of outbound webhooks gets the B events again under
 *   the ids it already had and nothing for A;
 * - a truncated file in the repository makes verify-backup fail.
 * The processor is a Stripe-compatible double in this process: its records must outlive the
 * database (the sandbox keeps its own in the service's database, which the restore rewinds).
 */
const suite = clusterSuite();

const WEBHOOK_SECRET = 'whsec_drill_0123456789abcdef';
const receiver = webhookReceiver();
let cluster: Cluster;
let db: Db;
let processor: FakeServer;
let campaignId = '';
let endpointSecret = '';
let hookPath = '';

// --- The processor: what it knows survives any restore of the database --------------------------
type Obj = Record<string, unknown>;
const intents = new Map<string, Obj>();
const events: Obj[] = [];
const balance: Obj[] = [];
const FEE = 59;

function answer(method: string, url: URL, form: URLSearchParams): { status: number; body: unknown } {
  const since = Number(url.searchParams.get('created[gte]') ?? 0);
  const before = Number(url.searchParams.get('created[lt]') ?? Infinity);
  if (method === 'POST' && url.pathname === '/v1/payment_intents') {
    const id = `pi_drill_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const metadata = Object.fromEntries([...form].filter(([k]) => k.startsWith('metadata[')).map(([k, v]) => [k.slice(9, -1), v]));
    const pi = { id, object: 'payment_intent', amount: Number(form.get('amount')), currency: form.get('currency'), status: 'requires_payment_method', client_secret: `${id}_secret_drill`, metadata };
    intents.set(id, pi);
    return { status: 200, body: pi };
  }
  const pi = /^\/v1\/payment_intents\/([^/]+)$/.exec(url.pathname);
  if (method === 'GET' && pi && intents.has(pi[1]!)) return { status: 200, body: intents.get(pi[1]!) };
  if (method === 'GET' && url.pathname === '/v1/events') {
    return { status: 200, body: { object: 'list', url: '/v1/events', has_more: false, data: events.filter((e) => Number(e.created) >= since) } };
  }
  if (method === 'GET' && url.pathname === '/v1/balance_transactions') {
    const data = balance.filter((b) => Number(b.created) >= since && Number(b.created) < before);
    return { status: 200, body: { object: 'list', url: '/v1/balance_transactions', has_more: false, data } };
  }
  return { status: 404, body: { error: { type: 'invalid_request_error', message: `No such object (${method} ${url.pathname})` } } };
}

/** The processor charges gift `g`: its PaymentIntent succeeds, an event is listed, a balance transaction made. */
function charge(g: Gift): Obj {
  const gross = g.amount_cents + g.tip_cents;
  const created = Math.floor(Date.now() / 1000);
  const bt = { id: `txn_${g.payment_intent_id}`, object: 'balance_transaction', type: 'charge', amount: gross, fee: FEE, net: gross - FEE, currency: g.currency.toLowerCase(), created, source: { id: chargeIdOf(g.payment_intent_id), object: 'charge', payment_intent: g.payment_intent_id } };
  balance.unshift(bt);
  const paid = { ...paymentSucceeded(g), latest_charge: { id: chargeIdOf(g.payment_intent_id), object: 'charge', balance_transaction: { id: bt.id, object: 'balance_transaction', fee: FEE } } };
  intents.set(g.payment_intent_id, { ...intents.get(g.payment_intent_id), ...paid });
  const event = stripeEvent('payment_intent.succeeded', paid);
  events.unshift(event);
  return event;
}

// --- Helpers ---------------------------------------------------------------------------------------
const ip = () => `198.18.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

async function api(p: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${cluster.url}${p}`, { ...init, headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip(), ...(init.headers as Record<string, string>) }, signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Gifts of a donor each, begun (create-intent) but not paid yet. */
async function startGifts(n: number): Promise<Gift[]> {
  const gifts: Gift[] = [];
  for (let i = 0; i < n; i += 1) {
    const r = await api('/api/v1/payments/create-intent', { method: 'POST', body: JSON.stringify({ fundraiser_id: campaignId, amount_cents: 1_000 + 100 * i, donor_email: `drill-${randomUUID().slice(0, 8)}@cluster.test` }) });
    expect(r.status).toBe(201);
    gifts.push(r.body.data as Gift);
  }
  return gifts;
}

/** The processor charges each gift and delivers its signed event (redelivered until acknowledged, as Stripe does). */
async function settle(gifts: Gift[]): Promise<Gift[]> {
  for (const g of gifts) {
    const event = charge(g);
    const payload = JSON.stringify(event);
    const sig = stripeSignature(payload, [WEBHOOK_SECRET]);
    await until('the delivery to be acknowledged', async () => (await api('/api/v1/webhooks/stripe', { method: 'POST', headers: { 'Stripe-Signature': sig }, body: payload })).status === 200, 60_000, 250);
  }
  return gifts;
}

/** Waits until every outbound donation.paid of `gifts` was delivered (the receiver has it and the database says so). */
async function deliveredPaid(gifts: Gift[]): Promise<Received[]> {
  const ids = new Set(gifts.map((g) => g.donation_id));
  const mine = () => receiver.at(hookPath).filter((r) => JSON.parse(r.body).type === 'donation.paid' && ids.has(JSON.parse(r.body).data.donation_id));
  await until('the outbound donation.paid of each gift', () => new Set(mine().map((r) => JSON.parse(r.body).data.donation_id)).size === ids.size, 120_000, 250);
  await until('the deliveries to be recorded', async () => Number((await db('webhook_deliveries').where({ event_type: 'donation.paid', status: 'pending' }).count({ n: '*' }))[0]!.n) === 0, 60_000, 250);
  return mine();
}

const money = async () => ({
  // The campaign's counters as every read sums them (the view over its counter rows).
  fundraiser: await db('fundraiser_counters').where({ id: campaignId }).first('raised_cents', 'donation_count', 'donor_count'),
  donations: await db('donations').where({ fundraiser_id: campaignId }).orderBy('id').select('id', 'status', 'processor_fee_cents'),
  ledger: Number((await db('ledger_entries').count({ n: '*' }))[0]!.n),
});

const admin = (args: string[]) => clusterAdmin(cluster, args);

/**
 * The operator's steps of docs/operations/worst-days.md: apps stopped, the folder gone, pgbackrest
 * restore, start, replica cloned again, `whileClosed` (recover-since), apps started.
 */
async function loseAndRestore(restoreArgs: string[], whileClosed: () => Promise<void> = async () => undefined): Promise<void> {
  await db.destroy();
  await Promise.all([0, 1].map((i) => cluster.stopApi(i)));
  await cluster.stopWorker(0);
  cluster.stopPrimary('immediate');
  fs.rmSync(cluster.primaryDir, { recursive: true, force: true });
  fs.mkdirSync(cluster.primaryDir, { mode: 0o700 });
  if (process.getuid?.() === 0) fs.chownSync(cluster.primaryDir, fs.statSync(cluster.backups.repoPath).uid, fs.statSync(cluster.backups.repoPath).gid);
  cluster.backups.run([...restoreArgs, 'restore']);
  await cluster.startPrimary();
  cluster.recloneReplica();
  db = createDb(cluster.env.DATABASE_DIRECT_URL!, { max: 3 });
  await whileClosed();
  await Promise.all([0, 1].map((i) => cluster.startApi(i)));
  await cluster.startWorker(0);
  await Promise.all([0, 1].map((i) => cluster.waitApiState(i, 'UP', 120_000)));
}

suite('the backup drill: lose the primary, restore it with pgBackRest, get back what the processor knows', () => {
  let a: Gift[] = [];
  let b: Gift[] = [];
  let between = new Date();
  let settled: Awaited<ReturnType<typeof money>>;
  let paidA: Received[] = [];
  let paidB: Received[] = [];

  beforeAll(async () => {
    processor = await startFakeServer((r) => {
      const url = new URL(r.url, 'http://x');
      return answer(r.method, url, new URLSearchParams(r.body));
    });
    cluster = await startCluster({
      api: 2,
      workers: 1,
      userEnv: { PATH: process.env.PATH, HOME: process.env.HOME, STRIPE_SECRET_KEY: 'sk_test_drill', STRIPE_API_URL: processor.url, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
    });
    db = createDb(cluster.env.DATABASE_DIRECT_URL!, { max: 3 });
    const owner = await createUser(db);
    campaignId = (await createFundraiser(db, owner.id, { goal_amount_cents: 100_000_000 })).id;
    const bearer = (await new LocalIdentityProvider(db, cluster.url).issueTokensForUser(owner.id)).idToken;
    hookPath = receiver.path('ok');
    const ep = await api('/api/v1/webhook-endpoints', { method: 'POST', headers: { Authorization: `Bearer ${bearer}` }, body: JSON.stringify({ url: `${receiver.base()}${hookPath}`, events: ['*'] }) });
    expect(ep.status).toBe(201);
    endpointSecret = ep.body.data.secret;
  }, 600_000);

  afterAll(async () => {
    await db?.destroy().catch(() => undefined);
    await cluster?.stop();
    await processor?.close();
  }, 120_000);

  test('when gifts A settle, an incremental backup is taken and gifts B settle, then the receiver has one verifiable donation.paid per gift', async () => {
    a = await settle(await startGifts(3));
    paidA = await deliveredPaid(a);
    cluster.backups.run(['--type=incr', 'backup']);
    const info = JSON.parse(cluster.backups.run(['info', '--output=json']))[0];
    expect(info.backup.map((x: { type: string }) => x.type)).toEqual(['full', 'incr']);
    // B begin before the restore point and are paid after it: the gift itself is the service's
    // record, its payment the processor's (a gift begun after the restore point is not in the
    // processor's events: docs/operations/worst-days.md).
    b = await startGifts(3);
    await new Promise((r) => setTimeout(r, 1_500));
    between = new Date();
    await new Promise((r) => setTimeout(r, 1_500));
    await settle(b);
    paidB = await deliveredPaid(b);
    // The segment holding B is archived (check switches WAL and waits for it); an unarchived
    // tail (archive_timeout: at most a minute) is what a lost disk would cost.
    cluster.backups.run(['check']);
    for (const r of [...paidA, ...paidB]) expect(() => new Webhook(endpointSecret).verify(r.body, r.headers)).not.toThrow();
    expect(paidA).toHaveLength(3);
    expect(paidB).toHaveLength(3);
    settled = await money();
    expect(settled.fundraiser.donation_count).toBe(6);
    expect(await checkLedger(db)).toEqual([]);
  });

  test('when the primary folder is destroyed and restored to the latest point, then A and B are there, the ledger exact, the replica cloned again and HAProxy serves reads and writes', async () => {
    await loseAndRestore([]);
    expect(await money()).toEqual(settled);
    expect(await checkLedger(db)).toEqual([]);
    expect((await cluster.replicaSql<{ n: number }>(`select count(*)::int as n from donations where fundraiser_id = '${campaignId}' and status = 'paid'`))[0]!.n).toBe(6);
    expect((await api(`/api/v1/fundraisers/${campaignId}`)).status).toBe(200);
    const write = await api('/api/v1/payments/create-intent', { method: 'POST', body: JSON.stringify({ fundraiser_id: campaignId, amount_cents: 500, donor_email: 'after-restore@cluster.test' }) });
    expect(write.status).toBe(201);
    const v = await admin(['verify-backup']);
    expect({ code: v.code, err: v.code === 0 ? '' : v.err }).toEqual({ code: 0, err: '' });
    expect(v.out).toMatch(/^verified pgBackRest backup \S+ \(incr, finished .*\); recovered to .*; \d+ campaigns, \d+ gifts, \d+ ledger groups; ledger clean$/);
    const metrics = await (await fetch(`${cluster.apiUrl(0)}/metrics`)).text();
    expect(Number(/^backup_last_verified_timestamp_seconds (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThan(Date.now() / 1000 - 600);
  });

  test('when restored to a time between A and B and recover-since that time runs, then every B gift is paid once, the ledger and the day reconcile, and the receiver gets B again under the ids it had, nothing for A', async () => {
    const target = between.toISOString().replace('T', ' ').replace('Z', '+00');
    const before = receiver.at(hookPath).length;
    let rec = { code: null as number | null, out: '', err: '' };
    // The worker's own payment recovery would settle B too, without a report: recover-since runs
    // before the service is started again, as the operator's page says.
    await loseAndRestore(['--type=time', `--target=${target}`, '--target-action=promote'], async () => {
      const rows = await db('donations').whereIn('id', [...a, ...b].map((g) => g.donation_id)).select('id', 'status');
      expect(rows.map((r) => `${r.id} ${r.status}`).sort()).toEqual([...a.map((g) => `${g.donation_id} paid`), ...b.map((g) => `${g.donation_id} pending`)].sort());
      rec = await admin(['recover-since', between.toISOString()]);
    });
    expect({ code: rec.code, err: rec.code === 0 ? '' : rec.err }).toEqual({ code: 0, err: '' });
    expect(rec.out).toContain('payment_intent.succeeded: 6 (3 applied, 0 new but changed nothing, 3 already recorded)');
    // The erasure log runs last (nobody was erased here): its line says so.
    expect(rec.out).toContain('erasure log: 0 erasure(s) logged');
    const now = await money();
    expect(now.fundraiser).toEqual(settled.fundraiser);
    expect(now.donations.filter((d) => settled.donations.some((s) => s.id === d.id))).toEqual(settled.donations);
    expect(now.ledger).toBe(settled.ledger);
    expect(await admin(['check-ledger'])).toMatchObject({ code: 0 });
    const rc = await admin(['reconcile', '--day', new Date().toISOString().slice(0, 10)]);
    expect({ code: rc.code, out: rc.out, err: rc.code === 0 ? '' : rc.err }).toMatchObject({ code: 0, out: expect.stringMatching(/: clean \(/), err: '' });

    // The worker sends B's donation.paid again, under the ids the receiver already had.
    const again = () => receiver.at(hookPath).slice(before);
    await until('B sent again', () => again().filter((r) => JSON.parse(r.body).type === 'donation.paid').length >= b.length, 120_000, 250);
    await new Promise((r) => setTimeout(r, 3_000));
    const ids = (rs: Received[]) => rs.filter((r) => JSON.parse(r.body).type === 'donation.paid').map((r) => r.headers['webhook-id']).sort();
    expect(ids(again())).toEqual(ids(paidB));
    expect(ids(again()).filter((id) => ids(paidA).includes(id))).toEqual([]);
  });

  test('when a file of the newest backup is truncated in the repository, then verify-backup exits 1 saying it did not restore', async () => {
    const info = JSON.parse(cluster.backups.run(['info', '--output=json']))[0];
    const label = info.backup.at(-1).label as string;
    const dir = path.join(cluster.backups.repoPath, 'backup', cluster.backups.stanza, label, 'pg_data');
    const files = (fs.readdirSync(dir, { recursive: true }) as string[]).map((f) => path.join(dir, f)).filter((f) => fs.statSync(f).isFile());
    const biggest = files.sort((x, y) => fs.statSync(y).size - fs.statSync(x).size)[0]!;
    fs.truncateSync(biggest, Math.floor(fs.statSync(biggest).size / 2));
    const v = await admin(['verify-backup']);
    expect(v.code).toBe(1);
    expect(v.err).toMatch(new RegExp(`backup ${label} \\(.*\\) did not restore`));
  });
});
