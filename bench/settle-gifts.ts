import Stripe from 'stripe';
import type { Db } from '../src/db/knex';
import { checkLedger } from '../src/modules/integrity';
import { WEBHOOK_SECRET, type Api } from './money-api';

/**
 * What the settlement benches share: pending gifts made through the API, their signed
 * `payment_intent.succeeded` events, the delivery of those at a fixed width, and the model the
 * counters, distinct donors and ledger are checked against after every round.
 */

export interface Gift { id: string; pi: string; fundraiser_id: string; amount: number; tip: number; email: string }
/** What each campaign should show after the gifts so far. */
export type Want = Map<string, { raised: number; tips: number; count: number; donors: Set<string> }>;

const signer = new Stripe('sk_test_bench_offline');
let ip = 0;
/** A client address of its own per request, so the per-address limiters never throttle the load. */
const nextIp = () => ((ip += 1), `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`);

/** Runs `run` over `items`, `n` at a time. */
export async function pool<T>(items: T[], n: number, run: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await run(items[next++]!);
  }));
}

/** Pending gifts through the API (not timed), `width` at a time; every fourth donor gives twice. `shape` gives gift i's amount and tip. */
export async function createGifts(api: Api, campaigns: string[], tag: string, o: { n: number; width: number; shape: (i: number) => { amount: number; tip: number } }): Promise<Gift[]> {
  const gifts: Gift[] = [];
  await pool(Array.from({ length: o.n }, (_, i) => i), o.width, async (i) => {
    const fundraiser_id = campaigns[i % campaigns.length]!;
    const email = `${tag}-${i % 4 === 3 ? i - 1 : i}@bench.test`;
    const { amount, tip } = o.shape(i);
    const res = await fetch(`${api.base}/api/v1/payments/create-intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': nextIp() },
      body: JSON.stringify({ fundraiser_id, amount_cents: amount, tip_cents: tip, donor_email: email }),
    });
    const body = (await res.json()) as { data?: { donation_id: string; payment_intent_id: string } };
    if (res.status !== 201 || !body.data) throw new Error(`create-intent answered ${res.status} ${JSON.stringify(body)}`);
    gifts.push({ id: body.data.donation_id, pi: body.data.payment_intent_id, fundraiser_id, amount, tip, email });
  });
  return gifts;
}

/** The gift's `payment_intent.succeeded` event as Stripe sends it, signed (stripe-node's test header). */
export function signedSucceeded(g: Gift, eventId: string): { payload: string; sig: string; eventId: string } {
  const payload = JSON.stringify({
    id: eventId, object: 'event', api_version: '2025-01-27.acacia', created: Math.floor(Date.now() / 1000),
    type: 'payment_intent.succeeded', livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null },
    data: { object: { id: g.pi, object: 'payment_intent', amount: g.amount + g.tip, amount_received: g.amount + g.tip, currency: 'usd',
      status: 'succeeded', latest_charge: `ch_${g.pi.replace(/^pi_/, '')}`, metadata: { kind: 'donation', donation_id: g.id } } },
  });
  return { payload, sig: signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }), eventId };
}

/**
 * Posts signed events to `base`'s Stripe webhook, `width` at a time, until each answers 200: a
 * refused one is sent again (at most 5 times) when `retry` says so of its status, as Stripe would.
 */
export async function postSigned(base: string, signed: Array<{ payload: string; sig: string }>, width: number, retry: (status: number) => boolean): Promise<void> {
  await pool(signed, width, async (s) => {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${base}/api/v1/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': s.sig }, body: s.payload });
      await res.arrayBuffer();
      if (res.status === 200) return;
      if (!retry(res.status) || attempt >= 5) throw new Error(`webhook answered ${res.status}`);
    }
  });
}

/** Adds a settled gift to the model. */
export function model(want: Want, g: Gift): void {
  const w = want.get(g.fundraiser_id) ?? { raised: 0, tips: 0, count: 0, donors: new Set<string>() };
  w.raised += g.amount;
  w.tips += g.tip;
  w.count += 1;
  w.donors.add(g.email);
  want.set(g.fundraiser_id, w);
}

/** Where the counters (summed shards), the distinct donors or the ledger differ from the model; empty when exact. */
export async function exactness(db: Db, want: Want): Promise<string[]> {
  const out: string[] = [];
  const have = await db('fundraiser_counters').whereIn('id', [...want.keys()]).select('id', 'raised_cents', 'tips_cents', 'donation_count', 'donor_count');
  if (have.length !== want.size) out.push(`${want.size - have.length} campaigns without counters`);
  for (const r of have) {
    const w = want.get(r.id)!;
    const pairs: Array<[string, number, number]> = [['raised', Number(r.raised_cents), w.raised], ['tips', Number(r.tips_cents), w.tips], ['gifts', Number(r.donation_count), w.count], ['donors', Number(r.donor_count), w.donors.size]];
    for (const [k, h, x] of pairs) if (h !== x) out.push(`campaign ${r.id}: ${k} ${h}, model ${x}`);
  }
  return [...out, ...(await checkLedger(db))];
}
