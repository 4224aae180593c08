import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import {
  advanceSandboxClock,
  deliverEvents,
  failNextSandboxRenewal,
  findSandboxSubscription,
  getSandboxObject,
  renewNextDueSandbox,
  SandboxActionError,
  webhookUrl,
  type SandboxEvent,
} from '../../integrations/payments';
import type { CheckoutView } from './sandbox.pages';

const ERROR_TEXT = { 400: 'Bad request', 404: 'Not found', 409: 'Conflict' } as const;

/**
 * Runs a sandbox action (its events are kept in its transaction), then delivers the events to
 * the webhook over HTTP. Undelivered events stay queued for redelivery, so the caller answers
 * (and redirects) either way.
 */
export async function runAndDeliver<T extends { events: SandboxEvent[] }>(
  ctx: AppContext,
  action: () => Promise<T>,
): Promise<Omit<T, 'events'> & { delivered: boolean }> {
  let out: T;
  try {
    out = await action();
  } catch (err) {
    if (err instanceof SandboxActionError) throw new ApiError(err.status, ERROR_TEXT[err.status], err.message);
    throw err;
  }
  // Deliveries off (SANDBOX_WEBHOOK_URL=off): nothing is sent, so nothing was delivered; the recheck finds it.
  const off = webhookUrl(ctx.config) === null;
  const delivered = off ? false : await deliverEvents(ctx, out.events);
  if (!delivered && !off) ctx.log.warn({ events: out.events.map((e) => e.id) }, 'sandbox webhook delivery failed; queued for redelivery');
  const { events: _events, ...rest } = out;
  return { ...rest, delivered };
}

export async function checkoutSession(ctx: AppContext, id: string): Promise<CheckoutView & { success_url: string; cancel_url: string }> {
  const s = await getSandboxObject(ctx.db, id, 'checkout_session');
  if (!s) throw new ApiError(404, 'Not found', 'Checkout session not found');
  return s.data as CheckoutView & { success_url: string; cancel_url: string };
}

export async function connectedAccount(ctx: AppContext, id: string): Promise<{ id: string; email?: string | null; details_submitted?: boolean }> {
  const a = await getSandboxObject(ctx.db, id, 'account');
  if (!a) throw new ApiError(404, 'Not found', 'Connected account not found');
  return a.data as { id: string; email?: string | null; details_submitted?: boolean };
}

/** Onboarding returns to `return_url` only on the site's origin (no open redirect), else to the site. */
export function onboardingReturnUrl(siteUrl: string, raw: string | undefined): string {
  const fallback = `${siteUrl}/`;
  if (!raw) return fallback;
  try {
    const u = new URL(raw);
    return u.origin === new URL(siteUrl).origin ? u.toString() : fallback;
  } catch {
    return fallback;
  }
}

/** More renewals than one advance may charge (5 years of 1,000 monthly subscriptions... bounded all the same). */
const MAX_RENEWALS_PER_ADVANCE = 10_000;

/**
 * POST /sandbox/clock/advance: moves the sandbox clock, then charges every renewal it reached,
 * oldest first, one transaction each, delivering each renewal's events before the next (so
 * the webhook sees a year of renewals in the order they would have come).
 */
export async function advanceClock(ctx: AppContext, seconds: number) {
  const { now, offset } = await advanceSandboxClock(ctx.db, seconds);
  const counts = { charged: 0, declined: 0, canceled: 0, skipped: 0 };
  const off = webhookUrl(ctx.config) === null;
  let delivered = !off;
  for (let i = 0; i < MAX_RENEWALS_PER_ADVANCE; i += 1) {
    const r = await renewNextDueSandbox(ctx.db, now);
    if (!r) break;
    counts[r.outcome] += 1;
    if (!off && !(await deliverEvents(ctx, r.events))) delivered = false;
  }
  return { now: new Date(now * 1000).toISOString(), offset_seconds: offset, renewals: counts, webhook_delivered: delivered };
}

/** POST /sandbox/subscriptions/:id/fail-next: the id is the processor subscription's, or the row its metadata names (a monthly gift). */
export async function failNext(ctx: AppContext, id: string, count: number) {
  const sub = await findSandboxSubscription(ctx.db, id);
  if (!sub) throw new ApiError(404, 'Not found', 'Subscription not found');
  if (sub.status === 'canceled') throw new ApiError(409, 'Conflict', 'This subscription is canceled');
  const out = await failNextSandboxRenewal(ctx.db, String(sub.id), count);
  return { subscription_id: out.id, declines_pending: out.fail_next_count };
}
