import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { emit } from '../../events';
import type { InvoicePaid, InvoicePaymentFailed, PaymentEvent, SetupSucceeded, SubscriptionChanged } from '../../integrations/payments';
import { accounts, post } from '../ledger';
import { withPaymentFee, type WebhookHandler, type WebhookHandlerMap, type WebhookOutcome } from '../webhooks';
import { fundAccount } from './communities.fund';
import { approvedByProcessor, rebuildJoin } from './communities.rebuild';
import { communityRefunded } from './communities.refunds';
import * as repo from './communities.repo';
import type { JoinRow } from './communities.repo';

/**
 * The join request an event names: its ref (the object's metadata, or its subscription's on
 * invoices), else its subscription. One the database lacks (started after a restore point) is
 * rebuilt from the description the event carries, when `rebuild` gives its processor ids.
 */
async function joinFor(
  ctx: AppContext,
  trx: Knex.Transaction,
  e: PaymentEvent,
  subscription: string | null,
  rebuild?: Parameters<typeof rebuildJoin>[3],
): Promise<JoinRow | undefined> {
  const id = e.ref?.kind === 'community_join' ? e.ref.id : null;
  const found = id ? await repo.lockJoin(trx, id) : subscription ? await repo.lockJoinBySubscription(trx, subscription) : undefined;
  if (found || !id || !rebuild) return found;
  return rebuildJoin(ctx, trx, e, rebuild);
}

/** SetupSucceeded: the card is saved, so the request goes to the leaders. */
const setupSucceeded: WebhookHandler<SetupSucceeded> = async (ctx, si, trx): Promise<WebhookOutcome> => {
  const join = await joinFor(ctx, trx, si, null, { customer: si.customer_id, setupIntent: si.setup_intent_id });
  const pm = si.payment_method_id;
  if (!join || !pm) return 'ignored';
  if (join.status !== 'requires_payment_method') {
    // Only a request rebuilt from its subscription's invoice (events replayed in another order) can
    // be past this without its card: it learns the card, never overwritten, and is not asked again.
    if (!join.needs_approval || !join.processor_subscription_id || join.processor_payment_method_id) return 'ignored';
    await repo.updateJoin(trx, join.id, {
      processor_payment_method_id: pm,
      processor_customer_id: join.processor_customer_id ?? si.customer_id,
      processor_setup_intent_id: join.processor_setup_intent_id ?? si.setup_intent_id,
    });
    return 'applied';
  }
  await repo.updateJoin(trx, join.id, {
    status: 'pending_approval',
    processor_payment_method_id: pm,
    processor_customer_id: join.processor_customer_id ?? si.customer_id,
    processor_setup_intent_id: join.processor_setup_intent_id ?? si.setup_intent_id,
  });
  await emit(trx, 'community.join_requested', { join_id: join.id, community_id: join.community_id, requester_user_id: join.user_id });
  return 'applied';
};

/** These statuses become a membership when a payment arrives; a declined or canceled request stays so. */
const ACTIVATES: repo.JoinStatus[] = ['pending_payment', 'approved', 'payment_failed', 'active'];

/**
 * InvoicePaid: the first period's payment (the member is in) or a renewal, each invoice once.
 * The money goes into the community fund, the processor's fee out of it, one balanced group.
 * An amount or currency that differs from the request settles nothing and is logged.
 */
const invoicePaid = withPaymentFee<InvoicePaid>(
  (event) => ({ paymentIntentId: event.payment_intent_id, amountCents: event.amount_cents }),
  async (ctx: AppContext, event: InvoicePaid, trx: Knex.Transaction, fee: number): Promise<WebhookOutcome> => {
    const sub = event.subscription_id;
    const found = await joinFor(ctx, trx, event, sub, { subscription: sub, customer: event.customer_id });
    const invoiceId = event.invoice_id;
    if (!found) return 'ignored';
    const join = await approvedByProcessor(ctx, trx, found, event);
    const amount = event.amount_cents;
    const currency = event.currency;
    if (amount !== join.amount_cents || currency !== join.currency) {
      ctx.log.warn({ joinId: join.id, eventId: event.id, expected: join.amount_cents, got: amount, currency }, 'community payment differs from the join request; nothing settled');
      return 'ignored';
    }
    if (await repo.paymentRecorded(trx, invoiceId)) return 'ignored';
    const on = { currency };
    const fund = fundAccount(join.community_id);
    const group = await post(
      trx,
      [
        { ...on, account: accounts.processorBalance, amount_cents: amount, kind: 'community_payment' },
        { ...on, account: fund, amount_cents: -amount, kind: 'community_payment' },
        // The processor keeps its fee out of the charge; the fund bears it, as a campaign does.
        { ...on, account: fund, amount_cents: fee, kind: 'processor_fee' },
        { ...on, account: accounts.processorBalance, amount_cents: -fee, kind: 'processor_fee' },
      ],
      { sourceEventId: event.id, processor: { ref: event.payment_intent_id, move: 'charge' } },
    );
    await repo.insertPayment(trx, {
      community_id: join.community_id,
      join_id: join.id,
      processor_invoice_id: invoiceId,
      processor_payment_intent_id: event.payment_intent_id,
      amount_cents: amount,
      fee_cents: fee,
      currency,
      ledger_group_id: group,
      source_event_id: event.id,
    });
    if (ACTIVATES.includes(join.status)) {
      if (join.status !== 'active') {
        await repo.updateJoin(trx, join.id, { status: 'active', activated_at: trx.fn.now() as unknown as Date, processor_subscription_id: join.processor_subscription_id ?? sub });
      }
      await repo.upsertMember(trx, { community_id: join.community_id, user_id: join.user_id, role: 'member', join_id: join.id });
    } else {
      ctx.log.warn({ joinId: join.id, status: join.status, eventId: event.id }, 'payment for a join request that is no longer open; kept in the fund');
    }
    return 'applied';
  },
);

/** InvoicePaymentFailed: a first payment that failed fails the request; a failed renewal changes nothing here. */
const invoiceFailed: WebhookHandler<InvoicePaymentFailed> = async (ctx, inv, trx): Promise<WebhookOutcome> => {
  const found = await joinFor(ctx, trx, inv, inv.subscription_id, { subscription: inv.subscription_id });
  const join = found && (await approvedByProcessor(ctx, trx, found, inv));
  if (!join || (join.status !== 'pending_payment' && join.status !== 'approved')) return 'ignored';
  await repo.updateJoin(trx, join.id, { status: 'payment_failed' });
  return 'applied';
};

/** SubscriptionChanged (deleted): the membership it paid for ends (an unpaid request is canceled). */
const subscriptionDeleted: WebhookHandler<SubscriptionChanged> = async (ctx, sub, trx): Promise<WebhookOutcome> => {
  if (!sub.deleted) return 'ignored';
  // Rebuilt too, so that its first invoice arriving after it makes no member of a canceled subscription.
  const join = await joinFor(ctx, trx, sub, sub.subscription_id, { subscription: sub.subscription_id, customer: sub.customer_id });
  if (!join || join.status === 'canceled' || join.status === 'declined') return 'ignored';
  await repo.updateJoin(trx, join.id, { status: 'canceled' });
  await repo.endMembership(trx, join.community_id, join.user_id, join.id);
  return 'applied';
};

/** The communities module's payment events, merged by `ref.kind` ('community_join') in src/modules/index.ts. */
export const communityWebhooks: WebhookHandlerMap = {
  SetupSucceeded: setupSucceeded,
  InvoicePaid: invoicePaid,
  InvoicePaymentFailed: invoiceFailed,
  SubscriptionChanged: subscriptionDeleted,
  Refunded: communityRefunded,
};
