import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError } from '../../http/errors';
import type { ConnectedAccount } from '../../integrations/payments';
import { enqueue } from '../../jobs/queue';
import * as repo from './payouts.repo';
import type { AccountRow, AccountStatus } from './payouts.repo';

export const SWEEP_QUEUE = 'payouts.sweep';

export const accountNotFound = () => new ApiError(404, 'Not found', 'Processor account not found');

/** Active once the processor lets the account take transfers and pay out; restricted when details are in but it may not. */
export function statusOf(a: Pick<ConnectedAccount, 'charges_enabled' | 'payouts_enabled' | 'details_submitted'>): AccountStatus {
  if (a.charges_enabled && a.payouts_enabled) return 'active';
  return a.details_submitted ? 'restricted' : 'onboarding';
}

export function publicAccount(a: AccountRow) {
  return {
    id: a.id,
    owner_type: a.owner_type,
    owner_id: a.owner_id,
    charges_enabled: a.charges_enabled,
    payouts_enabled: a.payouts_enabled,
    details_submitted: a.details_submitted,
    status: a.status,
    created_at: new Date(a.created_at).toISOString(),
  };
}

/**
 * Applies the processor's view of an account. An older state (by the processor's `created`
 * time) never overwrites a newer one. When the account becomes active, a sweep job transfers
 * what its holder's campaigns collected meanwhile (queued in this transaction).
 */
export async function applyAccountState(trx: Knex.Transaction, row: AccountRow, state: ConnectedAccount, at: Date | null): Promise<AccountRow> {
  if (at && row.synced_at && new Date(row.synced_at) > at) return row;
  const status = statusOf(state);
  const patch = {
    charges_enabled: state.charges_enabled,
    payouts_enabled: state.payouts_enabled,
    details_submitted: state.details_submitted,
    status,
    ...(at ? { synced_at: at } : {}),
  };
  await repo.updateAccount(trx, row.id, patch);
  if (status === 'active' && row.status !== 'active') await enqueue(trx, SWEEP_QUEUE, { account_id: row.id }, { singletonKey: row.id });
  return { ...row, ...patch };
}

/** The caller's own account (user-held); organizations come later and have none yet. */
export async function ownAccount(db: AppContext['db'], actor: Actor): Promise<AccountRow | undefined> {
  return (await repo.accountsOf(db, 'user', actor.userId))[0];
}

/** An account the caller may act on: their own; another id (e.g. an organization's) is 404 until organizations exist. */
export async function resolveAccount(db: AppContext['db'], actor: Actor, accountId: string | undefined): Promise<AccountRow> {
  const own = await ownAccount(db, actor);
  if (!own || (accountId !== undefined && accountId !== own.id)) throw accountNotFound();
  return own;
}

function siteUrl(ctx: AppContext, path: string): string {
  return new URL(path, ctx.config.SITE_URL).toString();
}

/**
 * Creates (once: the idempotency key names the holder) or resumes the caller's connected
 * account and answers a fresh onboarding link. Organization-held accounts are refused by the
 * route's managesOrganizationPayouts policy until organizations exist.
 */
export async function startOnboarding(ctx: AppContext, actor: Actor) {
  let account = await ownAccount(ctx.db, actor);
  if (!account) {
    const created = await ctx.payments.createConnectedAccount({
      email: actor.email,
      metadata: { kind: 'connected_account', owner_type: 'user', owner_id: actor.userId },
      idempotencyKey: `connect:user:${actor.userId}`,
    });
    await repo.insertAccount(ctx.db, {
      id: created.id,
      owner_type: 'user',
      owner_id: actor.userId,
      charges_enabled: created.charges_enabled,
      payouts_enabled: created.payouts_enabled,
      details_submitted: created.details_submitted,
      status: statusOf(created),
    });
    account = (await ownAccount(ctx.db, actor))!;
  }
  const url = await ctx.payments.createOnboardingLink(account.id, {
    refresh_url: siteUrl(ctx, '/settings/payouts?onboarding=refresh'),
    return_url: siteUrl(ctx, '/settings/payouts?onboarding=return'),
  });
  return { account_id: account.id, url };
}

/**
 * The account row (resolved by the managesAccount policy), first brought up to date from the
 * processor (best effort: the stored row answers when it is unreachable).
 */
export async function accountStatus(ctx: AppContext, account: AccountRow) {
  let state: ConnectedAccount;
  try {
    state = await ctx.payments.retrieveConnectedAccount(account.id);
  } catch (err) {
    ctx.log.warn({ err, accountId: account.id }, 'processor account read failed; answering the stored state');
    return publicAccount(account);
  }
  return publicAccount(
    await ctx.db.transaction(async (trx) => {
      const locked = (await repo.accountById(trx, account.id, { lock: true }))!;
      return applyAccountState(trx, locked, state, new Date());
    }),
  );
}

export async function dashboardLink(ctx: AppContext, account: AccountRow) {
  return { url: await ctx.payments.createDashboardLink(account.id) };
}
