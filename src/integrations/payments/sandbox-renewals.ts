import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { recordChargeTxn } from './sandbox-balance';
import { clockNowS } from './sandbox-clock';
import { recordEvents, sandboxEvent, type SandboxEvent } from './sandbox-delivery';
import { chargeObject, nowS, periodEnd, sbId } from './sandbox-objects';
import { createObject, updateObject } from './sandbox.repo';

/**
 * Renewals of the sandbox's subscriptions as the sandbox clock reaches them, shaped as Stripe's:
 * at the end of a period the next period starts and its invoice is charged (`invoice.paid`,
 * `customer.subscription.updated`). A declined renewal leaves the invoice open and the
 * subscription past_due (`invoice.payment_failed` with `next_payment_attempt`), retried after 3,
 * 5 and 7 days; the 4th decline is the last: the subscription is canceled
 * (`customer.subscription.deleted`). A paused subscription (pause_collection) collects nothing.
 */

type Obj = Record<string, any>;

/** Days to the next attempt after the 1st, 2nd and 3rd decline of an invoice. */
const RETRY_DAYS = [3, 5, 7];
export const MAX_ATTEMPTS = RETRY_DAYS.length + 1;

const DUE_SQL = `case when data->>'open_invoice' is not null then (data->>'next_attempt_at')::bigint else (data->>'current_period_end')::bigint end`;

export type RenewalOutcome = 'charged' | 'declined' | 'canceled' | 'skipped';

/**
 * Renews the one subscription that is most overdue at `nowS` (sandbox clock), in its own
 * transaction with its events recorded; null when none is due. The caller delivers the events.
 */
export async function renewNextDue(db: Db, now: number): Promise<{ outcome: RenewalOutcome; subscription: string; events: SandboxEvent[] } | null> {
  return db.transaction(async (trx) => {
    const row = await trx('sandbox_objects')
      .where({ kind: 'subscription' })
      .whereRaw(`data->>'status' in ('active', 'past_due')`)
      .whereRaw(`${DUE_SQL} <= ?`, [now])
      .orderByRaw(DUE_SQL)
      .forUpdate()
      .skipLocked()
      .first('id', 'data');
    if (!row) return null;
    const out = await renew(trx, row.data as Obj);
    await recordEvents(trx, out.events);
    return { ...out, subscription: row.id as string };
  });
}

async function renew(trx: Knex.Transaction, sub: Obj): Promise<{ outcome: RenewalOutcome; events: SandboxEvent[] }> {
  const interval: 'month' | 'year' = sub.items?.data?.[0]?.price?.recurring?.interval === 'year' ? 'year' : 'month';
  if (!sub.open_invoice && sub.pause_collection) {
    const patch = nextPeriod(sub, interval);
    await updateObject(trx, sub.id, patch);
    return { outcome: 'skipped', events: [sandboxEvent('customer.subscription.updated', { ...sub, ...patch })] };
  }
  let inv: Obj;
  let subPatch: Obj = {};
  if (sub.open_invoice) {
    inv = (await trx('sandbox_objects').where({ id: sub.open_invoice, kind: 'invoice' }).forUpdate().first('data')).data;
  } else {
    // Stripe starts the next period when it invoices it, paid or not.
    subPatch = nextPeriod(sub, interval);
    inv = invoiceFor({ ...sub, ...subPatch });
    await createObject(trx, 'invoice', inv.id, inv);
  }
  const due = Number(sub.open_invoice ? sub.next_attempt_at : sub.current_period_end);
  const attempt = Number(inv.attempt_count ?? 0) + 1;
  const failing = Number(sub.fail_next_count ?? 0) > 0;
  const pi: Obj = { id: sbId('pi'), object: 'payment_intent', amount: inv.amount_due, currency: inv.currency, metadata: {}, customer: sub.customer, invoice: inv.id, created: nowS() };
  if (failing) {
    Object.assign(pi, { status: 'requires_payment_method', latest_charge: null, last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } });
    await createObject(trx, 'payment_intent', pi.id, pi);
    const last = attempt >= MAX_ATTEMPTS;
    const next = last ? null : due + RETRY_DAYS[attempt - 1]! * 86_400;
    const invPatch = { attempt_count: attempt, payment_intent: pi.id, next_payment_attempt: next, status: last ? 'uncollectible' : 'open' };
    await updateObject(trx, inv.id, invPatch);
    const failed = { ...inv, ...invPatch };
    Object.assign(subPatch, { fail_next_count: Number(sub.fail_next_count) - 1, latest_invoice: inv.id });
    if (last) {
      Object.assign(subPatch, { status: 'canceled', canceled_at: due, ended_at: due, open_invoice: null, next_attempt_at: null });
      await updateObject(trx, sub.id, subPatch);
      return { outcome: 'canceled', events: [sandboxEvent('invoice.payment_failed', failed), sandboxEvent('customer.subscription.deleted', { ...sub, ...subPatch })] };
    }
    Object.assign(subPatch, { status: 'past_due', open_invoice: inv.id, next_attempt_at: next });
    await updateObject(trx, sub.id, subPatch);
    return { outcome: 'declined', events: [sandboxEvent('invoice.payment_failed', failed), sandboxEvent('customer.subscription.updated', { ...sub, ...subPatch })] };
  }
  const charge = chargeObject({ id: pi.id, amount: Number(inv.amount_due), currency: inv.currency, metadata: {} });
  await createObject(trx, 'charge', charge.id, charge);
  await recordChargeTxn(trx, charge);
  Object.assign(pi, { status: 'succeeded', amount_received: Number(inv.amount_due), latest_charge: charge.id, payment_method: sub.default_payment_method ?? null });
  await createObject(trx, 'payment_intent', pi.id, pi);
  const invPatch = { status: 'paid', attempt_count: attempt, amount_paid: Number(inv.amount_due), amount_remaining: 0, payment_intent: pi.id, charge: charge.id, next_payment_attempt: null };
  await updateObject(trx, inv.id, invPatch);
  Object.assign(subPatch, { status: 'active', open_invoice: null, next_attempt_at: null, latest_invoice: inv.id });
  await updateObject(trx, sub.id, subPatch);
  return { outcome: 'charged', events: [sandboxEvent('invoice.paid', { ...inv, ...invPatch }), sandboxEvent('customer.subscription.updated', { ...sub, ...subPatch })] };
}

function nextPeriod(sub: Obj, interval: 'month' | 'year'): Obj {
  const start = Number(sub.current_period_end);
  const end = periodEnd(start, interval, Number(sub.billing_cycle_anchor ?? sub.created ?? start));
  const items = sub.items?.data ? { ...sub.items, data: sub.items.data.map((i: Obj) => ({ ...i, current_period_start: start, current_period_end: end })) } : sub.items;
  return { current_period_start: start, current_period_end: end, items };
}

/** The invoice of the subscription's current period, for its price now. */
function invoiceFor(sub: Obj): Obj {
  const amount = Number(sub.items?.data?.[0]?.price?.unit_amount ?? 0);
  return {
    id: sbId('in'),
    object: 'invoice',
    status: 'open',
    customer: sub.customer,
    subscription: sub.id,
    payment_intent: null,
    charge: null,
    amount_due: amount,
    amount_paid: 0,
    amount_remaining: amount,
    attempt_count: 0,
    currency: sub.currency,
    billing_reason: 'subscription_cycle',
    period_start: sub.current_period_start,
    period_end: sub.current_period_end,
    lines: { object: 'list', data: [{ object: 'line_item', amount, period: { start: sub.current_period_start, end: sub.current_period_end } }] },
    subscription_details: { metadata: sub.metadata ?? {} },
    parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata ?? {} } },
    created: nowS(),
  };
}

/** The subscription a sandbox control names: its own id, or the row id its metadata names (e.g. a monthly gift's). */
export async function findSubscription(db: Knex | Knex.Transaction, id: string): Promise<Obj | null> {
  const own = await db('sandbox_objects').where({ id, kind: 'subscription' }).first('data');
  if (own) return own.data as Obj;
  const named = await db('sandbox_objects')
    .where({ kind: 'subscription' })
    .whereRaw(`exists (select 1 from jsonb_each_text(data->'metadata') m where m.key like '%\\_id' and m.value = ?)`, [id])
    .orderBy('created_at', 'desc')
    .first('data');
  return (named?.data as Obj) ?? null;
}

/** Makes the next `count` charge attempts of a subscription decline. */
export async function failNext(db: Db, subscriptionId: string, count: number): Promise<{ id: string; fail_next_count: number }> {
  return db.transaction(async (trx) => {
    const row = await trx('sandbox_objects').where({ id: subscriptionId, kind: 'subscription' }).forUpdate().first('data');
    const n = Number(row.data.fail_next_count ?? 0) + count;
    await updateObject(trx, subscriptionId, { fail_next_count: n });
    return { id: subscriptionId, fail_next_count: n };
  });
}

/** Applies a change once per idempotency key (a retried call answers without a second event). */
async function once(trx: Knex.Transaction, kind: string, key: string): Promise<boolean> {
  const id = sbId('req');
  return (await createObject(trx, kind, id, { id }, key)).id === id;
}

export async function updateSubscription(db: Db, input: { subscription_id: string; amount_cents?: number; paused?: boolean; idempotencyKey: string }): Promise<SandboxEvent[]> {
  return db.transaction(async (trx) => {
    const row = await trx('sandbox_objects').where({ id: input.subscription_id, kind: 'subscription' }).forUpdate().first('data');
    if (!row) throw Object.assign(new Error(`No such subscription: ${input.subscription_id}`), { statusCode: 404 });
    const sub = row.data as Obj;
    if (sub.status === 'canceled' || !(await once(trx, 'subscription_update', input.idempotencyKey))) return [];
    const patch: Obj = {};
    if (input.amount_cents !== undefined) {
      patch.items = { ...sub.items, data: sub.items.data.map((i: Obj, n: number) => (n === 0 ? { ...i, price: { ...i.price, unit_amount: input.amount_cents } } : i)) };
    }
    if (input.paused !== undefined) patch.pause_collection = input.paused ? { behavior: 'void', resumes_at: null } : null;
    await updateObject(trx, sub.id, patch);
    const events = [sandboxEvent('customer.subscription.updated', { ...sub, ...patch })];
    await recordEvents(trx, events);
    return events;
  });
}

export async function cancelSubscription(db: Db, input: { subscription_id: string; idempotencyKey: string }): Promise<SandboxEvent[]> {
  return db.transaction(async (trx) => {
    const row = await trx('sandbox_objects').where({ id: input.subscription_id, kind: 'subscription' }).forUpdate().first('data');
    if (!row) throw Object.assign(new Error(`No such subscription: ${input.subscription_id}`), { statusCode: 404 });
    const sub = row.data as Obj;
    if (sub.status === 'canceled') return [];
    const at = await clockNowS(trx);
    const patch = { status: 'canceled', canceled_at: at, ended_at: at, open_invoice: null, next_attempt_at: null };
    await updateObject(trx, sub.id, patch);
    const events = [sandboxEvent('customer.subscription.deleted', { ...sub, ...patch })];
    await recordEvents(trx, events);
    return events;
  });
}
