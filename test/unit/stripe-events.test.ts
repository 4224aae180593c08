import { toPaymentEvent } from '../../src/integrations/payments/stripe-events';
import { WebhookPayloadError } from '../../src/integrations/payments';

/** The translation of Stripe's event shapes into the service's typed payment events. */
const TIP = '0b8f3d2e-5c1a-4e7b-9f20-3a4b5c6d7e8f';
const ev = (type: string, object: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ id: 'evt_u', type, created: 1_700_000_000, data: { object }, ...extra });

describe('toPaymentEvent', () => {
  test('when a PaymentIntent succeeded with its charge expanded, then the fee comes from the balance transaction; a metadata kind the service does not know is ref kind other', () => {
    const e = toPaymentEvent(ev('payment_intent.succeeded', { id: 'pi_1', amount: 500, currency: 'usd', latest_charge: { id: 'ch_1', balance_transaction: { fee: 45 } }, metadata: { kind: 'raffle', raffle_id: 'x' } }));
    expect(e).toMatchObject({ kind: 'PaymentSucceeded', charge_id: 'ch_1', fee_cents: 45, amount_cents: 500, ref: { kind: 'other', id: null } });
  });

  test('when an invoice names its subscription and metadata only under parent (newer API versions), then the ref, subscription, intent and period end are read from there', () => {
    const e = toPaymentEvent(
      ev('invoice.paid', {
        id: 'in_1',
        amount_paid: 700,
        currency: 'USD',
        customer: 'cus_1',
        payments: { data: [{ payment: { payment_intent: 'pi_9' } }] },
        lines: { data: [{ period: { end: 1_702_000_000 } }] },
        parent: { subscription_details: { subscription: 'sub_1', metadata: { kind: 'tip', tip_id: TIP } } },
      }),
    );
    expect(e).toEqual(expect.objectContaining({ kind: 'InvoicePaid', ref: { kind: 'tip', id: TIP }, subscription_id: 'sub_1', payment_intent_id: 'pi_9', currency: 'usd', period_end: new Date(1_702_000_000_000) }));
  });

  test('when a payout event names its connected account, then the payout is typed with its arrival date; a dispute without metadata has no ref', () => {
    expect(toPaymentEvent(ev('payout.paid', { id: 'po_1', amount: 900, currency: 'usd', arrival_date: 1_764_028_800 }, { account: 'acct_1' }))).toMatchObject({
      kind: 'PayoutPaid',
      account_id: 'acct_1',
      payout: { id: 'po_1', amount_cents: 900, currency: 'usd', arrival_date: '2025-11-25' },
    });
    expect(toPaymentEvent(ev('charge.dispute.created', { id: 'dp_1', amount: 100, currency: 'usd', charge: 'ch_1', status: 'needs_response' }))).toMatchObject({ kind: 'DisputeOpened', ref: null, charge_id: 'ch_1' });
  });

  test('when a known type lacks a field the service needs, then WebhookPayloadError names the event and the field', () => {
    expect(() => toPaymentEvent(ev('invoice.paid', { id: 'in_1', currency: 'usd' }))).toThrow(WebhookPayloadError);
    expect(() => toPaymentEvent(ev('invoice.paid', { id: 'in_1', currency: 'usd' }))).toThrow(/evt_u: data.object.amount_paid is missing/);
    expect(() => toPaymentEvent(ev('payout.failed', { id: 'po_1', amount: -5, currency: 'usd' }))).toThrow(WebhookPayloadError);
  });
});
