import type { AppContext } from '../../context';
import { HANDLED_EVENT_TYPES, type PaymentEvent } from '../../integrations/payments';
import { processEvent, type WebhookHandlerMap } from '../webhooks';
import { pendingPayments } from './reconciliation.reads';
import { advanceEventCursor, eventCursor } from './reconciliation.repo';

/**
 * Recovering missed processor events (docs/decisions/0016-recovery-and-reconciliation.md): every payment still pending after
 * PAYMENT_RECHECK_AFTER_S is asked about at the processor, and the processor's event list is
 * read from the last event seen (5 minutes of overlap). Whatever comes back goes through
 * processEvent, the webhook's own exactly-once path: same handlers, ledger group, events and
 * mails; an id already recorded (or a row already settled) changes nothing.
 */

/** How far back the event catch-up starts again, so an event recorded late at the processor is not skipped. */
export const CATCH_UP_OVERLAP_MS = 5 * 60_000;
/** Where a first catch-up starts: the processor retries a delivery for 3 days, so older events were seen. */
const FIRST_CATCH_UP_MS = 3 * 86_400_000;

export interface RecoveryReport {
  rechecked: number;
  /** Events the recheck or the catch-up applied (settled, failed, refunded...). */
  applied: number;
  listed: number;
  failed: number;
}

async function apply(ctx: AppContext, handlers: WebhookHandlerMap, event: PaymentEvent): Promise<'applied' | 'other' | 'failed'> {
  try {
    return (await processEvent(ctx, handlers, event)) === 'applied' ? 'applied' : 'other';
  } catch (err) {
    // RetryLater (the event came before what it depends on) or a failing database: the next run asks again.
    ctx.log.warn({ err, eventId: event.id, kind: event.kind }, 'recovered processor event not applied; retried next run');
    return 'failed';
  }
}

/** Asks the processor about each payment still pending; `afterSeconds` overrides PAYMENT_RECHECK_AFTER_S (tests, the CLI). */
export async function recheckPayments(ctx: AppContext, handlers: WebhookHandlerMap, afterSeconds = ctx.config.PAYMENT_RECHECK_AFTER_S): Promise<RecoveryReport> {
  const out: RecoveryReport = { rechecked: 0, applied: 0, listed: 0, failed: 0 };
  for (const p of await pendingPayments(ctx.db, afterSeconds)) {
    let events: PaymentEvent[];
    try {
      // A processor call: no transaction is open here (processEvent opens its own after it).
      events = await ctx.payments.retrievePaymentState(p.lookup);
    } catch (err) {
      ctx.log.warn({ err, ref: p }, 'payment recheck: the processor did not answer; asked again next run');
      out.failed += 1;
      continue;
    }
    out.rechecked += 1;
    for (const e of events) {
      const r = await apply(ctx, handlers, e);
      if (r === 'applied') out.applied += 1;
      if (r === 'failed') out.failed += 1;
    }
  }
  return out;
}

/** Lists the processor's events since the last one seen (less the overlap) and processes them like deliveries. */
export async function catchUpEvents(ctx: AppContext, handlers: WebhookHandlerMap, now = new Date()): Promise<RecoveryReport> {
  const out: RecoveryReport = { rechecked: 0, applied: 0, listed: 0, failed: 0 };
  const cursor = await eventCursor(ctx.db);
  const since = new Date((cursor?.getTime() ?? now.getTime() - FIRST_CATCH_UP_MS) - CATCH_UP_OVERLAP_MS);
  let newest = cursor ?? since;
  let oldestFailed: Date | null = null;
  for await (const e of ctx.payments.listEventsSince(since, HANDLED_EVENT_TYPES)) {
    out.listed += 1;
    const r = await apply(ctx, handlers, e);
    if (r === 'applied') out.applied += 1;
    if (r === 'failed') {
      out.failed += 1;
      if (!oldestFailed || e.created < oldestFailed) oldestFailed = e.created;
    } else if (e.created > newest) newest = e.created;
  }
  // A failed event keeps the cursor at or before it, so the next run lists it again.
  const to = oldestFailed && oldestFailed < newest ? oldestFailed : newest;
  await advanceEventCursor(ctx.db, to);
  return out;
}

/** One run of both: the worker's job every PAYMENT_RECHECK_INTERVAL_S and `npm run admin -- recheck-payments`. */
export async function recoverPayments(ctx: AppContext, handlers: WebhookHandlerMap, afterSeconds?: number): Promise<RecoveryReport> {
  const a = await recheckPayments(ctx, handlers, afterSeconds);
  const b = await catchUpEvents(ctx, handlers);
  return { rechecked: a.rechecked, applied: a.applied + b.applied, listed: b.listed, failed: a.failed + b.failed };
}
