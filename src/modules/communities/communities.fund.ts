import { randomInt, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError } from '../../http/errors';
import { sha256Hex } from '../../infra/hash';
import { queueComposedMail, toLocale, type Locale } from '../../integrations/mail';
import { userLocale } from '../idp';
import { accounts, balance } from '../ledger';
import { callByKey, claimUserTransfer, completeProcessorCall, onUserTransferConfirmed, pendingOutOf, queueProcessorCall } from '../payouts';
import * as repo from './communities.repo';
import type { CommunityRow } from './communities.repo';
import { emailHint, withdrawalCodeMail } from './communities.mail';

/** The spec's withdrawal one-time code: 6 digits, 10 minutes, one use, 5 attempts, 5 per hour. */
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_ATTEMPTS = 5;
export const CODES_PER_HOUR = 5;
const HOUR_MS = 60 * 60_000;

/** The ledger account of a community's fund: what the platform owes the community (a liability). */
export const fundAccount = (communityId: string) => accounts.communityFund(communityId);

/** The fund's balance in cents (liabilities carry negative balances in the ledger). */
export async function fundBalance(db: Parameters<typeof balance>[0], communityId: string): Promise<number> {
  return 0 - (await balance(db, fundAccount(communityId)));
}

const hashCode = (c: CommunityRow, userId: string, code: string) => sha256Hex(`community-withdrawal:${c.id}:${userId}:${code}`);

/**
 * Emails the owner a fresh 6-digit code (any open one stops working), stored only as a hash.
 * At most 5 codes per hour per owner and community, counted in the database under the
 * community row's lock, so parallel requests and several replicas cannot exceed it; the 6th
 * answers 429 with the seconds until the oldest of the five leaves the hour.
 */
export async function requestCode(ctx: AppContext, c: CommunityRow, actor: Actor, res: { setHeader(name: string, value: string): unknown }) {
  return ctx.db.transaction(async (trx) => {
    await repo.findCommunity(trx, c.id, { lock: true });
    const now = Date.now();
    const recent = await repo.codesSince(trx, c.id, actor.userId, new Date(now - HOUR_MS));
    if (recent.length >= CODES_PER_HOUR) {
      const retryAfter = Math.max(1, Math.ceil((recent[recent.length - CODES_PER_HOUR].getTime() + HOUR_MS - now) / 1000));
      res.setHeader('Retry-After', String(retryAfter));
      throw new ApiError(429, 'Too many withdrawal codes requested. Please try again later.', `At most ${CODES_PER_HOUR} codes an hour`, { retryAfter });
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const expires = new Date(now + CODE_TTL_MS);
    await repo.replaceCode(trx, { community_id: c.id, user_id: actor.userId, code_hash: hashCode(c, actor.userId, code), expires_at: expires });
    const locale: Locale = toLocale(await userLocale(trx, actor.userId));
    await queueComposedMail(trx, withdrawalCodeMail(actor.email, locale, c.name, code));
    return { data: { method: 'email' as const, sent_to_hint: emailHint(actor.email), expires_at: expires.toISOString() } };
  });
}

type Refusal = { status: 400; error: string; message: string; code: string; extra?: Record<string, unknown> };
const refuse = (error: string, message: string, code: string, extra?: Record<string, unknown>): Refusal => ({ status: 400, error, message, code, extra });

/** The withdrawal's row, written by the transfer's confirm (whoever runs it: the request, its job, a refresh), with the code it spends. */
onUserTransferConfirmed('community_withdrawal', async (trx, call, moved) => {
  const r = call.details.record as { community_id: string; user_id: string; code_id: string };
  await repo.consumeCode(trx, r.code_id);
  await repo.insertWithdrawal(trx, {
    community_id: r.community_id,
    user_id: r.user_id,
    amount_cents: call.amount_cents,
    currency: call.currency,
    processor_account_id: moved.processor_account_id,
    processor_transfer_id: moved.processor_transfer_id,
    ledger_group_id: moved.ledger_group_id,
    code_id: r.code_id,
  });
});

/**
 * Spends a code on a withdrawal: the fund's money goes to the owner's active connected account
 * (a processor transfer and its ledger group, through the payouts module), as claim, call,
 * confirm: the code is checked and the transfer claimed in one short transaction, the processor
 * is called outside it, and the confirm writes the ledger group and the withdrawal and consumes
 * the code. A wrong code counts an attempt (the 5th wrong one burns the code); refusals commit
 * that count before answering 400, so it cannot be undone by failing. A fund too small or a
 * missing payout account leaves the code usable. So does a processor failure (503): the claim
 * stays and is retried by its job, and the same code retried re-calls the same transfer.
 */
export async function withdraw(ctx: AppContext, c: CommunityRow, actor: Actor, input: { amount_cents: number; code: string }) {
  const outcome = await ctx.db.transaction(async (trx) => {
    await repo.findCommunity(trx, c.id, { lock: true });
    const row = await repo.lockOpenCode(trx, c.id, actor.userId);
    const invalid = refuse('Invalid verification code', 'The code is wrong or already used; request a new one', 'INVALID_CODE');
    if (!row) return invalid;
    if (row.attempts >= CODE_MAX_ATTEMPTS) return refuse('Invalid verification code', 'Too many wrong attempts: request a new code', 'CODE_ATTEMPTS_EXCEEDED');
    if (row.expires_at.getTime() <= Date.now()) return refuse('Verification code expired', 'The code has expired; request a new one', 'CODE_EXPIRED');
    const ok = timingSafeEqual(Buffer.from(row.code_hash, 'hex'), Buffer.from(hashCode(c, actor.userId, input.code), 'hex'));
    if (!ok) {
      const attempts = await repo.countFailedAttempt(trx, row.id);
      return refuse('Invalid verification code', 'The code is wrong', 'INVALID_CODE', { attempts_left: Math.max(0, CODE_MAX_ATTEMPTS - attempts) });
    }
    // Claimed transfers out of the fund are spent already, though not in the ledger yet.
    const fund = (await fundBalance(trx, c.id)) - (await pendingOutOf(trx, fundAccount(c.id)));
    // The code's id keys the processor transfer: a retry with the same code re-calls the same one.
    const key = `community-withdrawal:${row.id}`;
    const earlier = await callByKey(trx, key);
    if (!earlier && input.amount_cents > fund) {
      return refuse('Insufficient funds', 'The amount is more than the community fund holds', 'INSUFFICIENT_FUNDS', { fund_balance_cents: fund });
    }
    const claim =
      earlier ??
      (await claimUserTransfer(trx, {
        user_id: actor.userId,
        amount_cents: input.amount_cents,
        currency: c.currency,
        liability: fundAccount(c.id),
        bucket: `community:${c.id}`,
        kind: 'community_withdrawal',
        metadata: { kind: 'community_withdrawal', community_id: c.id, code_id: row.id },
        idempotencyKey: key,
        purpose: 'community_withdrawal',
        record: { community_id: c.id, user_id: actor.userId, code_id: row.id },
      }));
    if (!claim) {
      return refuse('Payout account required', 'Connect an active payout account before withdrawing', 'PAYOUT_ACCOUNT_REQUIRED', { action: 'connect_payouts' });
    }
    await queueProcessorCall(trx, claim, { backstop: true });
    return { claim, fund: earlier ? fund + earlier.amount_cents : fund, codeId: row.id };
  });
  if ('status' in outcome) throw new ApiError(outcome.status, outcome.error, outcome.message, { code: outcome.code, ...outcome.extra });
  await completeProcessorCall(ctx, outcome.claim.id).catch((err: Error) => {
    // The claim stays (its job retries it); the code stays usable for a retry of the same transfer.
    ctx.log.error({ err: err.message, communityId: c.id }, 'community fund transfer failed');
    throw new ApiError(503, 'Payment processor unavailable', 'The withdrawal could not be made; please try again.');
  });
  const w = await repo.withdrawalByCode(ctx.db, outcome.codeId);
  if (!w) throw new ApiError(503, 'Payment processor unavailable', 'The withdrawal could not be made; please try again.');
  return {
    data: {
      id: w.id,
      community_id: c.id,
      amount_cents: Number(w.amount_cents),
      currency: 'USD' as const,
      status: 'transferred' as const,
      fund_balance_cents: outcome.fund - Number(w.amount_cents),
      created_at: new Date(w.created_at).toISOString(),
    },
  };
}
