import { randomBytes } from 'node:crypto';
import { sandboxFee } from './sandbox-fees';

/** Stripe-shaped objects the sandbox stores and sends in its events. */

export const sbId = (prefix: string) => `${prefix}_sb_${randomBytes(12).toString('hex')}`;
export const nowS = () => Math.floor(Date.now() / 1000);

/**
 * The end of a billing period starting at `startS`, as Stripe counts months and years: on the
 * billing cycle anchor's day of the month and time of day, or the month's last day when it is
 * shorter (an anchor on the 31st renews on Feb 28, then on Mar 31 again, never drifting).
 */
export function periodEnd(startS: number, interval: 'month' | 'year', anchorS: number = startS): number {
  const start = new Date(startS * 1000);
  const anchor = new Date(anchorS * 1000);
  const year = start.getUTCFullYear();
  const month = start.getUTCMonth() + (interval === 'year' ? 12 : 1);
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(anchor.getUTCDate(), lastDay);
  return Math.floor(Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds()) / 1000);
}

/** A succeeded charge for `amount` with its balance transaction's fee (2.9% + 30¢). */
export function chargeObject(pi: { id: string; amount: number; currency: string; metadata: Record<string, string> }) {
  const id = sbId('ch');
  return {
    id,
    object: 'charge',
    amount: pi.amount,
    amount_captured: pi.amount,
    amount_refunded: 0,
    currency: pi.currency,
    payment_intent: pi.id,
    metadata: pi.metadata,
    paid: true,
    captured: true,
    refunded: false,
    status: 'succeeded',
    created: nowS(),
    balance_transaction: { id: sbId('txn'), object: 'balance_transaction', amount: pi.amount, fee: sandboxFee(pi.amount), net: pi.amount - sandboxFee(pi.amount) },
    refunds: { object: 'list', data: [] as Record<string, unknown>[], has_more: false },
  };
}

/** A checkout session as Stripe sends it in events (the sandbox's own bookkeeping left out). */
export function sessionView(s: Record<string, any>) {
  return {
    id: s.id,
    object: 'checkout.session',
    mode: s.mode,
    status: s.status,
    payment_status: s.payment_status,
    amount_total: s.amount_total,
    amount_subtotal: s.amount_total,
    currency: s.currency,
    metadata: s.metadata ?? {},
    customer_email: s.customer_email ?? null,
    customer_details: s.customer_email ? { email: s.customer_email } : null,
    payment_intent: s.payment_intent ?? null,
    subscription: s.subscription ?? null,
    setup_intent: s.setup_intent ?? null,
    success_url: s.success_url,
    cancel_url: s.cancel_url,
    url: s.status === 'open' ? s.url : null,
    created: s.created ?? nowS(),
    livemode: false,
  };
}
