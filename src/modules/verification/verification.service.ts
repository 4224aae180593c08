import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { sha256Hex } from '../../infra/hash';
import { queueMail, toLocale } from '../../integrations/mail';
import { accountByLoginEmail } from './login-account.reads';
import * as repo from './verification.repo';
import type { TokenKind } from './verification.repo';

/** Links last 24 hours (spec: Limits). */
export const VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;

export function verificationLink(ctx: AppContext, token: string): string {
  return `${ctx.config.BASE_URL}/idp/verify-email?token=${encodeURIComponent(token)}`;
}

async function issueLink(
  ctx: AppContext,
  trx: Knex | Knex.Transaction,
  user: { id: string; locale?: string | null },
  kind: TokenKind,
  email: string,
): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  await repo.replaceToken(trx, {
    user_id: user.id,
    kind,
    email,
    token_hash: sha256Hex(token),
    expires_at: new Date(Date.now() + VERIFICATION_TTL_MS),
  });
  await queueMail(trx, {
    to: email,
    template: kind === 'email' ? 'email_verification' : 'private_contact_verification',
    locale: toLocale(user.locale),
    vars: { link: verificationLink(ctx, token) },
  });
}

/** Issues a fresh 24-hour single-use link (replacing older ones) and queues the mail. */
export async function sendEmailVerification(
  ctx: AppContext,
  trx: Knex | Knex.Transaction,
  user: { id: string; email: string; locale?: string | null },
): Promise<void> {
  await issueLink(ctx, trx, user, 'email', user.email);
}

/** The same for the private contact address (its own link, its own replacement chain). */
export async function sendPrivateContactVerification(
  ctx: AppContext,
  trx: Knex | Knex.Transaction,
  user: { id: string; locale?: string | null },
  email: string,
): Promise<void> {
  await issueLink(ctx, trx, user, 'private_contact', email);
}

/** Resend for the login address: sends only to an existing, active, unverified account. */
export async function resendEmailVerification(ctx: AppContext, email: string): Promise<void> {
  const user = await accountByLoginEmail(ctx.db, email.trim());
  if (!user || user.email_verified || user.status !== 'active') return;
  await ctx.db.transaction((trx) => sendEmailVerification(ctx, trx, user));
}
