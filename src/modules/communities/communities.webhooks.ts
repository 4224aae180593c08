import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { emit } from '../../events';
import type { ProcessorEvent } from '../../integrations/payments';
import { accounts, post } from '../ledger';
import type { WebhookHandler, WebhookHandlerMap, WebhookOutcome } from '../webhooks';
import { fundAccount } from './communities.fund';
import * as repo from './communities.repo';
import type { JoinRow } from './communities.repo';

type Obj = Record<string, any>;
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : typeof v === 'object' && v && typeof (v as Obj).id === 'string' ? (v as Obj).id : null);

/** The join request an object names: its own metadata, or (invoices) its subscription's. */
function joinIdOf(o: Obj): string | null {
  const m = o.metadata?.kind === 'community_join' ? o.metadata : (o.subscription_details?.metadata ?? o.parent?.subscription_details?.metadata);
  return m?.kind === 'community_join' && repo.isUuid(m.join_id) ? m.join_id : null;
}

const subscriptionOfInvoice = (inv: Obj): string | null => str(inv.subscription) ?? str(inv.parent?.subscription_details?.subscription);
/** The invoice's PaymentIntent: older API versions name it, newer ones list it under `payments`. */
const intentOfInvoice = (inv: Obj): string | null => str(inv.payment_intent) ?? str(inv.payments?.data?.[0]?.payment?.payment_intent);

async function joinFor(trx: Knex.Transaction, o: Obj, subscription: string | null): Promise<JoinRow | undefined> {
  const id = joinIdOf(o);
  if (id) return repo.lockJoin(trx, id);
  return subscription ? repo.lockJoinBySubscription(trx, subscription) : undefined;
}

/** setup_intent.succeeded: the card is saved, so the request goes to the leaders. */
const setupSucceeded: WebhookHandler = async (_ctx, event, trx): Promise<WebhookOutcome> => {
  const si = event.data.object;
  const join = await joinFor(trx, si, null);
  const pm = str(si.payment_method);
  if (!join || !pm || join.status !== 'requires_payment_method') return 'ignored';
  await repo.updateJoin(trx, join.id, {
    status: 'pending_approval',
    processor_payment_method_id: pm,
    processor_customer_id: join.processor_customer_id ?? str(si.customer),
    processor_setup_intent_id: join.processor_setup_intent_id ?? str(si.id),
  });
  await emit(trx, 'community.join_requested', { join_id: join.id, community_id: join.community_id, requester_user_id: join.user_id });
  return 'applied';
};

/** These statuses become a membership when a payment arrives; a declined or canceled request stays so. */
const ACTIVATES: repo.JoinStatus[] = ['pending_payment', 'approved', 'payment_failed', 'active'];

/**
 * invoice.paid: the first period's payment (the member is in) or a renewal, each invoice once.
 * The money goes into the community fund, the processor's fee out of it, one balanced group.
 * An amount or currency that differs from the request settles nothing and is logged.
 */
const invoicePaid: WebhookHandler = Object.assign(
  async (ctx: AppContext, event: ProcessorEvent, trx: Knex.Transaction, prefetched?: unknown): Promise<WebhookOutcome> => {
    const inv = event.data.object;
    const sub = subscriptionOfInvoice(inv);
    const join = await joinFor(trx, inv, sub);
    const invoiceId = str(inv.id);
    if (!join || !invoiceId) return 'ignored';
    const amount = Number(inv.amount_paid);
    const currency = String(inv.currency ?? '').toLowerCase();
    if (amount !== join.amount_cents || currency !== join.currency) {
      ctx.log.warn({ joinId: join.id, eventId: event.id, expected: join.amount_cents, got: amount, currency }, 'community payment differs from the join request; nothing settled');
      return 'ignored';
    }
    if (await repo.paymentRecorded(trx, invoiceId)) return 'ignored';
    const raw = Number((prefetched as { fee?: number } | undefined)?.fee ?? 0);
    const fee = Number.isSafeInteger(raw) && raw > 0 && raw < amount ? raw : 0;
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
      { sourceEventId: event.id },
    );
    await repo.insertPayment(trx, {
      community_id: join.community_id,
      join_id: join.id,
      processor_invoice_id: invoiceId,
      processor_payment_intent_id: intentOfInvoice(inv),
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
  {
    prefetch: async (ctx: AppContext, event: ProcessorEvent) => {
      const pi = intentOfInvoice(event.data.object);
      if (!pi) return { fee: 0 };
      try {
        return { fee: await ctx.payments.feeForPaymentIntent(pi) };
      } catch (err) {
        ctx.log.warn({ err: (err as Error).message, paymentIntent: pi }, 'processor fee of a community payment unknown');
        return { fee: 0 };
      }
    },
  },
);

/** invoice.payment_failed: a first payment that failed fails the request; a failed renewal changes nothing here. */
const invoiceFailed: WebhookHandler = async (_ctx, event, trx): Promise<WebhookOutcome> => {
  const inv = event.data.object;
  const join = await joinFor(trx, inv, subscriptionOfInvoice(inv));
  if (!join || (join.status !== 'pending_payment' && join.status !== 'approved')) return 'ignored';
  await repo.updateJoin(trx, join.id, { status: 'payment_failed' });
  return 'applied';
};

/** customer.subscription.deleted: the membership it paid for ends (an unpaid request is canceled). */
const subscriptionDeleted: WebhookHandler = async (_ctx, event, trx): Promise<WebhookOutcome> => {
  const sub = event.data.object;
  const join = await joinFor(trx, sub, str(sub.id));
  if (!join || join.status === 'canceled' || join.status === 'declined') return 'ignored';
  await repo.updateJoin(trx, join.id, { status: 'canceled' });
  await repo.endMembership(trx, join.community_id, join.user_id, join.id);
  return 'applied';
};

/** The communities module's processor events, merged by `metadata.kind` ('community_join') in webhooks/handlers.ts. */
export const communityWebhooks: WebhookHandlerMap = {
  'setup_intent.succeeded': setupSucceeded,
  'invoice.paid': invoicePaid,
  'invoice.payment_failed': invoiceFailed,
  'customer.subscription.deleted': subscriptionDeleted,
};
