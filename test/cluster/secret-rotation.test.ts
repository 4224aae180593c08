import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '../../src/db/knex';
import { LocalIdentityProvider } from '../../src/integrations/idp/local/local-provider';
import { startCluster, type Cluster } from '../../scripts/cluster/topology';
import { clusterAdmin, clusterSuite } from './suite';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { paymentSucceeded, type Gift } from '../helpers/gift-events';
import { stripeEvent } from '../helpers/stripe';
import { stripeSignature } from './signatures';

/**
 * Secrets rotate while requests flow through the cluster's API processes
 * (docs/operations/worst-days.md): the processor's webhook signing secret is rolled as Stripe
 * rolls it (old and new both sign for a while, then only the new) while the processes are rolled
 * onto `STRIPE_WEBHOOK_SECRET=new,old` and then `new`; the identity provider's key is rotated by
 * `npm run admin -- rotate-idp-key`. Signed-in reads and signed deliveries never stop meanwhile,
 * and none is refused (no 401, no signature 400): the rotation costs nobody a request.
 */
const suite = clusterSuite();

const OLD = 'whsec_rotation_old_0123456789';
const NEW = 'whsec_rotation_new_9876543210';
const API = 2;
let processorSigns = [OLD];
let cluster: Cluster;
let db: Db;
let campaignId = '';
let bearer = '';
let ownerId = '';

const ip = () => `198.18.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

async function call(base: string, p: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${p}`, { ...init, headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip(), ...(init.headers as Record<string, string>) }, signal: AbortSignal.timeout(60_000) });
  return { status: res.status, text: await res.text() };
}

/** Signed-in reads and gifts settled by signed deliveries, in a few loops, until stopped; every answer kept. */
class Traffic {
  /** What the processor signs its deliveries with now: what the previous test left, at first. */
  signing: string[] = [...processorSigns];
  readonly refused: string[] = [];
  readonly failed: string[] = [];
  reads = 0;
  deliveries = 0;
  private running = true;
  private loops: Promise<void>[];

  constructor(loops: number) {
    this.loops = Array.from({ length: loops }, (_, k) => this.loop(k));
  }

  private note(op: string, r: { status: number; text: string } | null): void {
    if (!r) this.failed.push(`${op}: no answer`);
    else if (r.status === 401 || (op === 'delivery' && r.status === 400)) this.refused.push(`${op}: ${r.status} ${r.text.slice(0, 200)}`);
    else if (r.status >= 500 || (op === 'signed-in read' && r.status !== 200)) this.failed.push(`${op}: ${r.status} ${r.text.slice(0, 200)}`);
  }

  private async loop(k: number): Promise<void> {
    for (let i = k; this.running; i += 1) {
      if (i % 2 === 0) {
        this.note('signed-in read', await call(cluster.url, '/api/v1/me/donations', { headers: { Authorization: `Bearer ${bearer}` } }).catch(() => null));
        this.reads += 1;
        continue;
      }
      const created = await call(cluster.url, '/api/v1/payments/create-intent', { method: 'POST', body: JSON.stringify({ fundraiser_id: campaignId, amount_cents: 1_000, donor_email: `rot-${randomUUID().slice(0, 8)}@cluster.test` }) }).catch(() => null);
      if (created?.status !== 201) {
        this.note('create-intent', created);
        continue;
      }
      const g = (JSON.parse(created.text) as { data: Gift }).data;
      const payload = JSON.stringify(stripeEvent('payment_intent.succeeded', paymentSucceeded(g)));
      const r = await call(cluster.url, '/api/v1/webhooks/stripe', { method: 'POST', headers: { 'Stripe-Signature': stripeSignature(payload, this.signing) }, body: payload }).catch(() => null);
      this.note('delivery', r);
      this.deliveries += 1;
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

const admin = (args: string[]) => clusterAdmin(cluster, args);

suite('secrets rotate while requests flow', () => {
  beforeAll(async () => {
    cluster = await startCluster({ api: API, workers: 0, userEnv: { PATH: process.env.PATH, HOME: process.env.HOME, STRIPE_WEBHOOK_SECRET: OLD, SANDBOX_WEBHOOK_URL: 'off' } });
    db = createDb(cluster.env.DATABASE_DIRECT_URL!, { max: 3 });
    ownerId = (await createUser(db)).id;
    campaignId = (await createFundraiser(db, ownerId, { goal_amount_cents: 100_000_000 })).id;
    bearer = (await new LocalIdentityProvider(db, cluster.url).issueTokensForUser(ownerId)).idToken;
  }, 600_000);

  afterAll(async () => {
    await db?.destroy();
    await cluster?.stop();
  }, 120_000);

  test('when the webhook secret is rolled (both sign, processes rolled onto new,old, old expires, rolled onto new), then no delivery is refused; afterwards the old secret alone is', async () => {
    const traffic = new Traffic(3);
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      traffic.signing = [OLD, NEW];
      cluster.setAppEnv({ STRIPE_WEBHOOK_SECRET: `${NEW},${OLD}` });
      await cluster.rollingRestart();
      traffic.signing = [NEW];
      await new Promise((r) => setTimeout(r, 1_000));
      cluster.setAppEnv({ STRIPE_WEBHOOK_SECRET: NEW });
      await cluster.rollingRestart();
      processorSigns = [NEW];
    } finally {
      await traffic.stop();
    }
    expect({ refused: traffic.refused, failed: traffic.failed }).toEqual({ refused: [], failed: [] });
    expect(traffic.deliveries).toBeGreaterThan(0);
    const payload = JSON.stringify(stripeEvent('payment_intent.succeeded', { id: 'pi_unknown', object: 'payment_intent', metadata: {} }));
    for (let i = 0; i < API; i += 1) {
      expect((await call(cluster.apiUrl(i), '/api/v1/webhooks/stripe', { method: 'POST', headers: { 'Stripe-Signature': stripeSignature(payload, [OLD]) }, body: payload })).status).toBe(400);
    }
  });

  test('when rotate-idp-key runs, then tokens of the old key and of the new one are accepted by every process and no signed-in read is refused', async () => {
    const traffic = new Traffic(3);
    let out = '';
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      const r = await admin(['rotate-idp-key']);
      expect({ code: r.code, err: r.code === 0 ? '' : r.err }).toEqual({ code: 0, err: '' });
      out = r.out;
      await new Promise((r2) => setTimeout(r2, 1_000));
    } finally {
      await traffic.stop();
    }
    expect(out).toMatch(/is current; 1 retired key/);
    expect({ refused: traffic.refused, failed: traffic.failed }).toEqual({ refused: [], failed: [] });
    expect(traffic.reads).toBeGreaterThan(0);
    const fresh = (await new LocalIdentityProvider(db, cluster.url).issueTokensForUser(ownerId)).idToken;
    expect(JSON.parse(Buffer.from(fresh.split('.')[0]!, 'base64url').toString()).kid).not.toBe(JSON.parse(Buffer.from(bearer.split('.')[0]!, 'base64url').toString()).kid);
    for (let i = 0; i < API; i += 1) {
      for (const token of [bearer, fresh]) expect((await call(cluster.apiUrl(i), '/api/v1/me/donations', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    }
  });
});
