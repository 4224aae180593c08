import type { AppContext } from '../../context';
import { HANDLED_EVENT_TYPES, type PaymentEvent, type PaymentProcessor } from '../../integrations/payments';
import { processEvent, type WebhookHandlerMap, type WebhookOutcome } from '../webhooks';
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

async function apply(ctx: AppContext, handlers: WebhookHandlerMap, event: PaymentEvent): Promise<WebhookOutcome | 'failed'> {
  try {
    return await processEvent(ctx, handlers, event);
  } catch (err) {
    // RetryLater (the event came before what it depends on) or a failing database: the next run asks again.
    ctx.log.warn({ err, eventId: event.id, kind: event.kind }, 'recovered processor event not applied; retried next run');
    return 'failed';
  }
}

/** What replaying a list of processor events did: `duplicate` = the id was already recorded. */
export type ReplayTally = Record<WebhookOutcome | 'failed' | 'listed', number>;
export interface ReplayReport extends ReplayTally {
  /** The same counts per processor event type. */
  byType: Record<string, ReplayTally>;
  /** The newest event that did not fail, and the oldest that did (where the next catch-up must start again). */
  newest: Date | null;
  oldestFailed: Date | null;
}

const tally = (): ReplayTally => ({ listed: 0, applied: 0, ignored: 0, duplicate: 0, failed: 0 });

/** Processes each event as a delivery would be (processEvent: exactly once by id), counting outcomes. */
async function replayEvents(ctx: AppContext, handlers: WebhookHandlerMap, events: AsyncIterable<PaymentEvent> | Iterable<PaymentEvent>): Promise<ReplayReport> {
  const out: ReplayReport = { ...tally(), byType: {}, newest: null, oldestFailed: null };
  for await (const e of events) {
    const r = await apply(ctx, handlers, e);
    const t = (out.byType[e.processor_type] ??= tally());
    for (const c of [out, t]) {
      c.listed += 1;
      c[r] += 1;
    }
    if (r === 'failed') {
      if (!out.oldestFailed || e.created < out.oldestFailed) out.oldestFailed = e.created;
    } else if (!out.newest || e.created > out.newest) out.newest = e.created;
  }
  return out;
}

/** Moves the catch-up cursor past what was replayed, but never past a failed event (the next run lists it again). */
async function advancePast(ctx: AppContext, r: ReplayReport, floor: Date): Promise<void> {
  const newest = r.newest && r.newest > floor ? r.newest : floor;
  await advanceEventCursor(ctx.db, r.oldestFailed && r.oldestFailed < newest ? r.oldestFailed : newest);
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
    const r = await replayEvents(ctx, handlers, events);
    out.applied += r.applied;
    out.failed += r.failed;
  }
  return out;
}

/** Lists the processor's events since the last one seen (less the overlap) and processes them like deliveries. */
export async function catchUpEvents(ctx: AppContext, handlers: WebhookHandlerMap, now = new Date()): Promise<RecoveryReport> {
  const cursor = await eventCursor(ctx.db);
  const since = new Date((cursor?.getTime() ?? now.getTime() - FIRST_CATCH_UP_MS) - CATCH_UP_OVERLAP_MS);
  const r = await replayEvents(ctx, handlers, ctx.payments.listEventsSince(since, HANDLED_EVENT_TYPES));
  await advancePast(ctx, r, cursor ?? since);
  return { rechecked: 0, applied: r.applied, listed: r.listed, failed: r.failed };
}

/**
 * Oldest first, as they happened: a newest-first list (Stripe's) is reversed, which is the only way
 * to order events of one second; the stable sort by time then keeps that order within a second.
 */
export function oldestFirst(events: PaymentEvent[], order: PaymentProcessor['eventListOrder']): PaymentEvent[] {
  const listed = order === 'newest-first' ? [...events].reverse() : events;
  return listed.map((e, i) => ({ e, i })).sort((a, b) => a.e.created.getTime() - b.e.created.getTime() || a.i - b.i).map((x) => x.e);
}

/**
 * After a restore to an earlier point: every event the processor lists from `from` (less the
 * catch-up's overlap) goes through the webhook's exactly-once path, oldest first, as the
 * deliveries came. Ids the database already recorded change nothing; the catch-up cursor moves
 * forward past them. The list is read whole first (it is ordered before anything is applied).
 */
export async function recoverSince(ctx: AppContext, handlers: WebhookHandlerMap, from: Date): Promise<ReplayReport & { since: Date }> {
  const since = new Date(from.getTime() - CATCH_UP_OVERLAP_MS);
  const events: PaymentEvent[] = [];
  for await (const e of ctx.payments.listEventsSince(since, HANDLED_EVENT_TYPES)) events.push(e);
  const r = await replayEvents(ctx, handlers, oldestFirst(events, ctx.payments.eventListOrder));
  await advancePast(ctx, r, since);
  return { ...r, since };
}

/** One run of both: the worker's job every PAYMENT_RECHECK_INTERVAL_S and `npm run admin -- recheck-payments`. */
export async function recoverPayments(ctx: AppContext, handlers: WebhookHandlerMap, afterSeconds?: number): Promise<RecoveryReport> {
  const a = await recheckPayments(ctx, handlers, afterSeconds);
  const b = await catchUpEvents(ctx, handlers);
  return { rechecked: a.rechecked, applied: a.applied + b.applied, listed: b.listed, failed: a.failed + b.failed };
}
