import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError } from '../../http/errors';
import { requireVerifiedEmail } from '../../http/verified-email';
import { ATTESTATION_HEADER, requireHumanGuest } from '../../http/guest-check';
import { requestLocale } from '../../integrations/mail';
import { giftMetadata, processorOrigin, processorStoreUnavailable } from '../../integrations/payments';
import { findById as findFundraiser, type FundraiserRow } from '../fundraisers';
import { userProfile } from '../idp';
import { canRead } from '../fundraisers';
import { plainText } from '../../infra/plain-text';
import * as repo from './donations.repo';
import * as recurringRepo from './recurring/recurring.repo';
import type { DonationRow } from './donations.repo';
import type { CheckoutBody, IntentBody } from './donations.schemas';

const notAccepting = () =>
  new ApiError(400, 'Bad request', 'This campaign is not accepting donations', { code: 'FUNDRAISER_NOT_ACCEPTING_DONATIONS' });

const invalid = (path: string, message: string) =>
  new ApiError(400, 'Validation failed', `${path}: ${message}`, { details: [{ path, message }] });

/** Only an active, non-deleted campaign the caller may read takes money (unknown ones neither). */
async function acceptingCampaign(ctx: AppContext, actor: Actor | null, id: string): Promise<FundraiserRow> {
  const f = await findFundraiser(ctx.db, id);
  if (!f || f.deleted_at || f.status !== 'active' || !canRead(f, actor)) throw notAccepting();
  return f;
}

/** The donor's message as plain text (markup dropped, as comments), or null when nothing is left. */
function cleanMessage(message: string | null | undefined): string | null {
  if (!message) return null;
  const text = plainText(message);
  if (text === null) throw invalid('body.message', 'too many levels of HTML entity encoding');
  return text || null;
}

/** A return URL must stay on the site (no open redirect through the processor). */
function siteUrl(ctx: AppContext, value: string | undefined, path: string): string | null {
  if (!value) return null;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw invalid(path, 'must be a URL');
  }
  if (u.origin !== new URL(ctx.config.SITE_URL).origin) throw invalid(path, `must be on ${new URL(ctx.config.SITE_URL).origin}`);
  return u.toString();
}

/**
 * The pending row, written before any processor call: its id is the idempotency key and the
 * metadata link. A monthly gift's row is written with it, in one transaction.
 */
async function pendingRow(
  ctx: AppContext,
  req: Request,
  actor: Actor | null,
  body: IntentBody,
  method: DonationRow['method'],
  urls: { success_url?: string | null; cancel_url?: string | null } = {},
  monthly = false,
) {
  const f = await acceptingCampaign(ctx, actor, body.fundraiser_id);
  if (!actor && !body.donor_email) throw invalid('body.donor_email', 'a guest must give donor_email');
  await requireHumanGuest(ctx, actor, { captchaToken: body.captchaToken, attestation: req.header(ATTESTATION_HEADER), ip: req.ip });
  const profileName = actor ? ((await userProfile(ctx.db, actor.userId))?.name ?? null) : null;
  const donor = {
    fundraiser_id: f.id,
    donor_user_id: actor?.userId ?? null,
    // A signed-in donor's receipts go to the account's address.
    donor_email: actor ? actor.email : body.donor_email!.toLowerCase(),
    donor_name: body.donor_name?.trim() || profileName,
    anonymous: body.anonymous ?? false,
    amount_cents: body.amount_cents,
    tip_cents: body.tip_cents ?? 0,
    currency: f.currency,
    locale: requestLocale(req) ?? 'en',
  };
  const message = cleanMessage(body.message);
  return ctx.db.transaction(async (trx) => {
    const gift = monthly ? await recurringRepo.insert(trx, donor) : null;
    const row = await repo.insertDonation(trx, {
      ...donor,
      message,
      referral_code: body.ref ?? null,
      status: 'pending',
      method,
      receipt_id: randomBytes(24).toString('base64url'),
      success_url: urls.success_url ?? null,
      cancel_url: urls.cancel_url ?? null,
      recurring_gift_id: gift?.id ?? null,
    });
    if (gift) await recurringRepo.update(trx, gift.id, { first_donation_id: row.id });
    return { f, row, gift };
  });
}

/**
 * A processor failure fails the pending row (never a dangling state) and answers 503 when the
 * processor could not be reached, 502 when it refused.
 */
async function processorCall<T>(ctx: AppContext, row: DonationRow, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    await repo.markFailed(ctx.db, row.id);
    const type = String((err as { type?: unknown })?.type ?? '');
    ctx.log.warn({ donationId: row.id, err: (err as Error)?.message, type }, 'payment processor call failed');
    if (processorStoreUnavailable(err)) throw err;
    const unreachable = /Connection|RateLimit|APIError/.test(type) || !type;
    throw new ApiError(unreachable ? 503 : 502, 'Payment processor unavailable', 'The payment could not be started; please try again', {
      code: unreachable ? 'PROCESSOR_UNAVAILABLE' : 'PROCESSOR_ERROR',
    });
  }
}

/**
 * The objects of a gift name it and describe it, so that a database restored to before it was
 * started can rebuild it from the processor's events (donations.rebuild.ts). A monthly gift's
 * subscription (the same metadata) names its first gift, the ref every event of it carries.
 */
const metadata = (ctx: AppContext, row: DonationRow): Record<string, string> => ({
  kind: 'donation',
  donation_id: row.id,
  ...giftMetadata({ ...row, method: row.method === 'checkout' ? 'checkout' : 'payment_intent', origin: processorOrigin(ctx.config.PUBLIC_URL) }),
});

/** POST /payments/create-intent: a PaymentIntent for the client to confirm (Stripe.js, or the sandbox). */
export async function createIntent(ctx: AppContext, req: Request, actor: Actor | null, body: IntentBody) {
  const { f, row } = await pendingRow(ctx, req, actor, body, 'payment_intent');
  const pi = await processorCall(ctx, row, () =>
    ctx.payments.createPaymentIntent({
      amount_cents: row.amount_cents + row.tip_cents,
      currency: f.currency,
      metadata: metadata(ctx, row),
      description: `Donation to ${f.title}`.slice(0, 200),
      receipt_email: row.donor_email,
      idempotencyKey: `donation:${row.id}`,
    }),
  );
  await repo.setProcessorIds(ctx.db, row.id, { pi: pi.id });
  return {
    donation_id: row.id,
    payment_intent_id: pi.id,
    client_secret: pi.client_secret,
    amount_cents: row.amount_cents,
    tip_cents: row.tip_cents,
    currency: row.currency,
    status: 'pending' as const,
  };
}

/** POST /donations: a Checkout Session; the payer returns to the campaign page by default. */
export async function createCheckout(ctx: AppContext, req: Request, actor: Actor | null, body: CheckoutBody) {
  if (actor) requireVerifiedEmail(actor);
  const success = siteUrl(ctx, body.success_url, 'body.success_url');
  const cancel = siteUrl(ctx, body.cancel_url, 'body.cancel_url');
  const monthly = body.interval === 'month';
  const { f, row, gift } = await pendingRow(ctx, req, actor, body, 'checkout', { success_url: success, cancel_url: cancel }, monthly);
  const back = `${ctx.config.SITE_URL}/fundraisers/${encodeURIComponent(f.slug)}?donation=${row.id}`;
  const lineItems = [{ name: `${monthly ? 'Monthly donation' : 'Donation'} to ${f.title}`.slice(0, 200), amount_cents: row.amount_cents }];
  if (row.tip_cents > 0) lineItems.push({ name: monthly ? 'Monthly tip to the platform' : 'Tip to the platform', amount_cents: row.tip_cents });
  const session = await processorCall(ctx, row, () =>
    ctx.payments.createCheckoutSession({
      mode: monthly ? 'subscription' : 'payment',
      ...(monthly ? { interval: 'month' as const } : {}),
      currency: f.currency,
      line_items: lineItems,
      metadata: metadata(ctx, row),
      success_url: success ?? back,
      cancel_url: cancel ?? `${back}&canceled=true`,
      customer_email: row.donor_email,
      idempotencyKey: `donation:${row.id}`,
    }),
  );
  await repo.setProcessorIds(ctx.db, row.id, { cs: session.id });
  if (gift) await recurringRepo.update(ctx.db, gift.id, { processor_checkout_session_id: session.id });
  return { donation_id: row.id, url: session.url, status: 'pending' as const, ...(gift ? { recurring_gift_id: gift.id } : {}) };
}
