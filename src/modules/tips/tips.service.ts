import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError, notFound } from '../../http/errors';
import { requireHumanGuest } from '../../http/guest-check';
import { queueComposedMail, renderComposed, toLocale, type Locale } from '../../integrations/mail';
import { processorOrigin, tipMetadata } from '../../integrations/payments';
import { markSent } from '../../integrations/mail/outbox.repo';
import { userLocale } from '../idp';
import * as repo from './tips.repo';
import { tipReceiptMail } from './tips.mail';

export const RECEIPT_EMAIL_MAX = 5;
const SEND_TIMEOUT_MS = 5_000;

export interface CreateTipInput {
  amount_cents: number;
  cadence: repo.TipCadence;
  anonymous?: boolean;
  email?: string;
  captchaToken?: string;
}

/**
 * Starts a tip: a pending row, then a Checkout Session for it (payment, or a monthly
 * subscription) whose metadata names the tip. The tip id is the processor idempotency key, so
 * a retried create never makes a second session. Guests pass the CAPTCHA when it is configured.
 */
export async function createTip(
  ctx: AppContext,
  actor: Actor | null,
  input: CreateTipInput,
  req: { ip?: string; locale: Locale | null; attestation?: string },
): Promise<{ id: string; url: string }> {
  await requireHumanGuest(ctx, actor, { captchaToken: input.captchaToken, attestation: req.attestation, ip: req.ip });
  const id = randomUUID();
  const email = input.email ?? actor?.email ?? null;
  const locale = req.locale ?? (actor ? toLocale(await userLocale(ctx.db, actor.userId)) : 'en');
  await repo.insertTip(ctx.db, {
    id,
    user_id: actor?.userId ?? null,
    email,
    anonymous: input.anonymous ?? false,
    amount_cents: input.amount_cents,
    cadence: input.cadence,
    locale,
  });
  const back = `${ctx.config.SITE_URL}/tip/${id}`;
  const monthly = input.cadence === 'recurring';
  let session;
  try {
    session = await ctx.payments.createCheckoutSession({
      mode: monthly ? 'subscription' : 'payment',
      ...(monthly ? { interval: 'month' as const } : {}),
      currency: 'usd',
      line_items: [{ name: monthly ? 'Monthly tip to the platform' : 'Tip to the platform', amount_cents: input.amount_cents }],
      // The tip described too, so a database restored to before it can rebuild it (tips.rebuild.ts).
      metadata: {
        kind: 'tip',
        tip_id: id,
        ...tipMetadata({ user_id: actor?.userId ?? null, anonymous: input.anonymous ?? false, amount_cents: input.amount_cents, cadence: input.cadence, locale, origin: processorOrigin(ctx.config.PUBLIC_URL) }),
      },
      success_url: back,
      cancel_url: back,
      customer_email: email,
      idempotencyKey: id,
    });
  } catch (err) {
    ctx.log.error({ err: (err as Error).message, tipId: id }, 'checkout session for a tip failed');
    await repo.updateTip(ctx.db, id, { status: 'failed' });
    throw new ApiError(503, 'Payment processor unavailable', 'The payment could not be started; please try again.');
  }
  await repo.setCheckoutSession(ctx.db, id, session.id);
  return { id, url: session.url };
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** The public receipt: never an email, never a processor id; the tip id is the capability. */
export async function tipReceipt(ctx: AppContext, id: string) {
  const t = await repo.receiptRow(ctx.db, id);
  if (!t) throw notFound('Tip');
  return {
    data: {
      id: t.id,
      amount_cents: t.amount_cents,
      currency: 'USD' as const,
      cadence: t.cadence,
      status: t.status,
      created_at: iso(t.created_at)!,
      paid_at: iso(t.paid_at),
      tipper_name: t.anonymous || !t.user_id ? null : (t.tipper_name ?? null),
      ...(t.cadence === 'recurring'
        ? { subscription: { status: t.subscription_status, current_period_end: iso(t.current_period_end), canceled_at: iso(t.canceled_at) } }
        : {}),
    },
  };
}

/**
 * Emails a paid tip's receipt to any address, at most 5 times per tip (counted atomically, so
 * parallel requests cannot exceed it; the 6th is refused for good). The mail is queued with the
 * count and handed to the mailer before commit: 'sent' when that worked, else 'queued' (the
 * worker sends it; the job only becomes visible at commit, so it never sends a mail twice).
 */
export async function emailTipReceipt(ctx: AppContext, id: string, to: string, locale: Locale | null): Promise<{ status: 'sent' | 'queued' }> {
  return ctx.db.transaction(async (trx) => {
    const tip = await repo.takeReceiptEmail(trx, id, RECEIPT_EMAIL_MAX);
    if (!tip) {
      const t = await repo.findTip(trx, id);
      if (!t || t.status !== 'paid') throw notFound('Tip');
      throw new ApiError(429, 'Receipt email limit reached for this tip', `A tip's receipt can be emailed at most ${RECEIPT_EMAIL_MAX} times.`, {
        code: 'RECEIPT_EMAIL_LIMIT',
      });
    }
    const mail = tipReceiptMail(tip, to, locale ?? toLocale(tip.locale), ctx.config.SITE_URL);
    const outboxId = await queueComposedMail(trx, mail);
    try {
      const r = renderComposed(mail);
      await withTimeout(ctx.mailer.send({ to, from: ctx.config.MAIL_FROM, subject: r.subject, text: r.text, html: r.html }), SEND_TIMEOUT_MS);
      await markSent(trx, outboxId, 1);
      return { status: 'sent' as const };
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message, tipId: id }, 'tip receipt not sent at once; left to the mail worker');
      return { status: 'queued' as const };
    }
  });
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`mail send timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
