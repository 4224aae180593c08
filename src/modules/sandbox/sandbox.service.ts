import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import { deliverEvents, getSandboxObject, SandboxActionError, webhookUrl, type SandboxEvent } from '../../integrations/payments';
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
