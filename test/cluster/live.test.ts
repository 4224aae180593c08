import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '../../src/db/knex';
import { startCluster, until, type Cluster } from '../../scripts/cluster/topology';
import { clusterSuite } from './suite';
import { createUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { paymentSucceeded, signedEvent, type Gift } from '../helpers/gift-events';
import { openSse, type SseStream } from '../helpers/sse';

/**
 * A campaign's live stream across the cluster's API processes (docs/integrators/live-stream.md):
 * viewers that HAProxy spread over the processes each get every gift, whichever process settled
 * it; and a rolling restart ends their streams, which they reconnect with Last-Event-ID (as
 * EventSource does) without losing or repeating a gift. No latency is asserted: deadlines are
 * generous for a busy machine.
 */
const suite = clusterSuite();

const API = 3;
let cluster: Cluster;
let db: Db;
let campaign: FundraiserRow;
let secret = '';
let addressSeq = 0;
/** Each viewer and each call its own client address, so the per-address stream limit never refuses the test. */
const ip = () => `198.18.${Math.floor(addressSeq / 250) % 256}.${1 + (addressSeq++ % 250)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A gift created through `base` and reported paid by the processor in a signed delivery to `base`. */
async function settleGift(base: string, amount: number): Promise<Gift> {
  const res = await fetch(`${base}/api/v1/payments/create-intent`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip() },
    body: JSON.stringify({ fundraiser_id: campaign.id, amount_cents: amount, donor_email: `live-${randomUUID().slice(0, 8)}@cluster.test` }),
    signal: AbortSignal.timeout(60_000),
  });
  expect(res.status).toBe(201);
  const g = ((await res.json()) as { data: Gift }).data;
  const { payload, signature } = signedEvent('payment_intent.succeeded', paymentSucceeded(g), secret);
  // The processor retries a delivery that got no 2xx; so does this.
  await until(`the delivery of ${g.donation_id} to be acknowledged`, async () => {
    const ack = await fetch(`${base}/api/v1/webhooks/stripe`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature }, body: payload, signal: AbortSignal.timeout(60_000) }).catch(() => null);
    await ack?.arrayBuffer();
    return ack?.status === 200;
  }, 120_000, 250);
  return g;
}

/** API process i's count of requests in flight (an open stream is one until it ends). */
async function inFlight(i: number): Promise<number> {
  const text = await (await fetch(`${cluster.apiUrl(i)}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();
  const line = text.split('\n').find((l) => l.startsWith('http_requests_in_flight '));
  return line ? Number(line.split(' ').pop()) : 0;
}

/**
 * A viewer through HAProxy that behaves as EventSource: when its stream ends it connects again
 * (any non-200 answer is tried again shortly) with the last donation's id as Last-Event-ID.
 */
class Viewer {
  readonly gifts: string[] = [];
  readonly cursors: bigint[] = [];
  streams = 0;
  ends = 0;
  private last: string | null = null;
  private current: SseStream | null = null;
  private running = true;
  private readonly address = ip();
  readonly done: Promise<void>;
  private opened!: () => void;
  /** Resolves once the first stream has sent its opening progress event. */
  readonly open = new Promise<void>((r) => (this.opened = r));

  constructor() {
    this.done = this.run();
  }

  private take(s: SseStream, from: number): number {
    for (; from < s.events.length; from += 1) {
      const e = s.events[from]!;
      if (e.event === 'progress') this.opened();
      if (e.event !== 'donation') continue;
      this.gifts.push(e.data.id);
      this.cursors.push(BigInt(e.id!));
      this.last = e.id!;
    }
    return from;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const headers: Record<string, string> = { 'X-Forwarded-For': this.address, ...(this.last ? { 'Last-Event-ID': this.last } : {}) };
      const s = await openSse(`${cluster.url}/api/v1/fundraisers/${campaign.id}/live`, headers).catch(() => null);
      if (!s || s.status !== 200) {
        s?.close();
        await sleep(300);
        continue;
      }
      this.current = s;
      this.streams += 1;
      let seen = 0;
      await s.until('the stream to end', () => ((seen = this.take(s, seen)), false), 2_000_000_000).catch(() => undefined);
      this.take(s, seen);
      this.current = null;
      if (this.running) this.ends += 1;
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.current?.close();
    await this.done;
  }
}

suite('live streams across the cluster', () => {
  const viewers: Viewer[] = [];

  beforeAll(async () => {
    cluster = await startCluster({ api: API, workers: 1, appOutput: 'files', userEnv: { PATH: process.env.PATH, HOME: process.env.HOME } });
    db = createDb(cluster.env.DATABASE_DIRECT_URL!, { max: 2 });
    secret = cluster.env.STRIPE_WEBHOOK_SECRET!;
    const owner = await createUser(db);
    campaign = await createFundraiser(db, owner.id, { goal_amount_cents: 100_000_000 });
  }, 600_000);

  afterAll(async () => {
    await Promise.all(viewers.map((v) => v.stop()));
    await db?.destroy();
    await cluster?.stop();
  }, 120_000);

  test('viewers that HAProxy spread over the processes each get a gift settled through every process', async () => {
    const before = await Promise.all(Array.from({ length: API }, (_, i) => inFlight(i)));
    // Round robin: two streams land on each process.
    for (let k = 0; k < 2 * API; k += 1) viewers.push(new Viewer());
    await Promise.all(viewers.map((v) => v.open));
    await until('every process to hold a viewer', async () => (await Promise.all(Array.from({ length: API }, (_, i) => inFlight(i)))).every((n, i) => n > before[i]!), 60_000, 250);
    // One gift through each process: every viewer gets at least two settled by a process other than its own.
    const gifts: Gift[] = [];
    for (let i = 0; i < API; i += 1) gifts.push(await settleGift(cluster.apiUrl(i), 1_000 + i));
    const want = gifts.map((g) => g.donation_id);
    await until('every viewer to get every gift', () => viewers.every((v) => want.every((id) => v.gifts.includes(id))), 60_000, 100);
    for (const v of viewers) {
      expect(v.gifts).toEqual(want);
      expect(v.ends).toBe(0);
    }
  });

  test('a rolling restart ends the streams; reconnected with Last-Event-ID, no viewer loses or repeats a gift', async () => {
    const from = viewers.map((v) => v.gifts.length);
    const settled: string[] = [];
    let giving = true;
    // Gifts keep settling through HAProxy while every process is replaced in turn.
    const giver = (async () => {
      for (let k = 0; giving; k += 1) {
        settled.push((await settleGift(cluster.url, 2_000 + k)).donation_id);
        await sleep(200);
      }
    })();
    await cluster.rollingRestart();
    // A few more after the last process is back, so the last reconnects are followed by live gifts.
    await sleep(1_000);
    giving = false;
    await giver;
    settled.push((await settleGift(cluster.url, 3_000)).donation_id);
    await until('every viewer to get every gift settled during the restart', () => viewers.every((v) => settled.every((id) => v.gifts.includes(id))), 120_000, 100);
    expect(settled.length).toBeGreaterThan(3);
    for (const [k, v] of viewers.entries()) {
      // Each process was replaced once, so each stream was ended at least once and reconnected.
      expect(v.ends).toBeGreaterThanOrEqual(1);
      expect(v.streams).toBeGreaterThan(1);
      expect(v.gifts.slice(from[k])).toEqual(settled);
      // The cursor only grows across reconnects: nothing was sent twice.
      for (let j = 1; j < v.cursors.length; j += 1) expect(v.cursors[j]! > v.cursors[j - 1]!).toBe(true);
    }
    const paid = await db('donations').whereIn('id', settled).where('status', 'paid').count<{ n: string }[]>('* as n');
    expect(Number(paid[0]!.n)).toBe(settled.length);
  });
});
