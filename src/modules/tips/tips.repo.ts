import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { joinPublicUser } from '../idp';
import { ledgerSql } from '../ledger';

type Q = Db | Knex.Transaction;

export type TipStatus = 'pending' | 'paid' | 'failed' | 'canceled' | 'refunded';
export type TipCadence = 'one_time' | 'recurring';

export interface TipRow {
  id: string;
  user_id: string | null;
  email: string | null;
  anonymous: boolean;
  amount_cents: number;
  currency: string;
  cadence: TipCadence;
  status: TipStatus;
  locale: string;
  processor_checkout_session_id: string | null;
  processor_payment_intent_id: string | null;
  processor_subscription_id: string | null;
  processor_customer_id: string | null;
  subscription_status: string | null;
  current_period_end: Date | null;
  canceled_at: Date | null;
  subscription_event_at: Date | null;
  receipt_email_count: number;
  paid_at: Date | null;
  created_at: Date;
}

const num = (r: any): TipRow | undefined => (r ? { ...r, amount_cents: Number(r.amount_cents) } : undefined);

export const isUuid = (v: unknown): v is string =>
  typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);

export async function insertTip(
  db: Q,
  row: Pick<TipRow, 'id' | 'user_id' | 'email' | 'anonymous' | 'amount_cents' | 'cadence' | 'locale'>,
): Promise<void> {
  await db('tips').insert({ ...row, currency: 'usd', status: 'pending' });
}

export async function setCheckoutSession(db: Q, id: string, sessionId: string): Promise<void> {
  await db('tips').where({ id }).update({ processor_checkout_session_id: sessionId, updated_at: db.fn.now() });
}

export async function findTip(db: Q, id: string): Promise<TipRow | undefined> {
  if (!isUuid(id)) return undefined;
  return num(await db('tips').where({ id }).first());
}

/** The tip with its row locked for the rest of the transaction (settling serialises on it). */
export async function lockTip(trx: Knex.Transaction, id: string): Promise<TipRow | undefined> {
  if (!isUuid(id)) return undefined;
  return num(await trx('tips').where({ id }).forUpdate().first());
}

export async function lockTipBySubscription(trx: Knex.Transaction, subscriptionId: string): Promise<TipRow | undefined> {
  return num(await trx('tips').where({ processor_subscription_id: subscriptionId }).forUpdate().first());
}

export async function lockTipBySession(trx: Knex.Transaction, sessionId: string): Promise<TipRow | undefined> {
  return num(await trx('tips').where({ processor_checkout_session_id: sessionId }).forUpdate().first());
}

export async function updateTip(db: Q, id: string, patch: Partial<TipRow>): Promise<void> {
  await db('tips').where({ id }).update({ ...patch, updated_at: db.fn.now() });
}

/** The public receipt: the tip and, for a signed-in tipper, their profile name. */
export async function receiptRow(db: Q, id: string): Promise<(TipRow & { tipper_name: string | null }) | undefined> {
  if (!isUuid(id)) return undefined;
  const r = await joinPublicUser(db('tips as t'), 'u', 't.user_id', { left: true }).where('t.id', id).first('t.*', 'u.name as tipper_name');
  return r ? { ...r, amount_cents: Number(r.amount_cents) } : undefined;
}

/**
 * Counts one receipt email against the tip's allowance of 5, atomically: answers the tip when
 * the send is allowed, undefined when it is not paid, missing or out of sends.
 */
export async function takeReceiptEmail(db: Q, id: string, max: number): Promise<TipRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [r] = await db('tips')
    .where({ id, status: 'paid' })
    .andWhere('receipt_email_count', '<', max)
    .increment('receipt_email_count', 1)
    .returning('*');
  return num(r);
}

export interface NewTipPayment {
  tip_id: string;
  processor_invoice_id: string | null;
  processor_checkout_session_id: string | null;
  processor_payment_intent_id: string | null;
  amount_cents: number;
  fee_cents: number;
  currency: string;
  ledger_group_id: string;
  source_event_id: string;
}

/** Answers false when this processor payment was already recorded (a second event for it). */
export async function paymentRecorded(db: Q, ref: { invoice?: string | null; session?: string | null }): Promise<boolean> {
  const q = db('tip_payments');
  if (ref.invoice) q.where({ processor_invoice_id: ref.invoice });
  else if (ref.session) q.where({ processor_checkout_session_id: ref.session });
  else return false;
  return !!(await q.first('id'));
}

export interface TipPaymentRow {
  id: string;
  tip_id: string;
  amount_cents: number;
  refunded_cents: number;
  currency: string;
}

/** The payment behind a charge's PaymentIntent, locked; undefined when it is not a tip's. */
export async function lockPaymentByIntent(trx: Knex.Transaction, paymentIntentId: string): Promise<TipPaymentRow | undefined> {
  const r = await trx('tip_payments').where({ processor_payment_intent_id: paymentIntentId }).forUpdate().first('id', 'tip_id', 'amount_cents', 'refunded_cents', 'currency');
  return r ? { ...r, amount_cents: Number(r.amount_cents), refunded_cents: Number(r.refunded_cents) } : undefined;
}

export async function setPaymentRefunded(trx: Knex.Transaction, id: string, refundedCents: number): Promise<void> {
  await trx('tip_payments').where({ id }).update({ refunded_cents: refundedCents, refunded_at: trx.fn.now() });
}

export async function insertPayment(db: Q, p: NewTipPayment): Promise<void> {
  await db('tip_payments').insert(p);
}

/** Per tip: what its payments sum to, and what tips revenue holds for it in the ledger. */
export async function tipRevenueFigures(db: Q): Promise<Array<{ tip_id: string; paid: number; ledger: number }>> {
  const { rows } = await db.raw(
    `with p as (select tip_id, sum(amount_cents - refunded_cents) as paid from tip_payments group by tip_id),
          l as ?
     select coalesce(p.tip_id, l.tip_id) as tip_id, coalesce(p.paid, 0) as paid, coalesce(l.ledger, 0) as ledger
       from p full join l on l.tip_id = p.tip_id
      where coalesce(p.paid, 0) <> coalesce(l.ledger, 0)`,
    [ledgerSql.platformTipRevenueByTipSql(db)],
  );
  return rows.map((r: any) => ({ tip_id: r.tip_id, paid: Number(r.paid), ledger: Number(r.ledger) }));
}

/** All platform tip payments, and the tips revenue the ledger holds outside campaigns. */
export async function tipRevenueTotals(db: Q): Promise<{ paid: number; ledger: number }> {
  const { rows } = await db.raw(
    `select (select coalesce(sum(amount_cents - refunded_cents), 0) from tip_payments) as paid,
            ? as ledger`,
    [ledgerSql.platformTipRevenueSql(db)],
  );
  return { paid: Number(rows[0].paid), ledger: Number(rows[0].ledger) };
}
