import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError } from '../../http/errors';
import type { ConnectedAccount } from '../../integrations/payments';
import { enqueue } from '../../infra/jobs';
import { orgsWherePermitted } from '../organizations';
import * as repo from './payouts.repo';
import type { AccountRow, AccountStatus, OwnerType } from './payouts.repo';

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

/** The caller's own account (user-held). */
export async function ownAccount(db: AppContext['db'], actor: Actor): Promise<AccountRow | undefined> {
  return (await repo.accountsOf(db, 'user', actor.userId))[0];
}

/** Accounts the caller owns or manages: their own, then those of organizations where they hold org.manage_payouts. */
export async function managedAccounts(db: AppContext['db'], actor: Actor): Promise<AccountRow[]> {
  const orgs = await orgsWherePermitted(db, actor, 'org.manage_payouts');
  return [...(await repo.accountsOf(db, 'user', actor.userId)), ...(await repo.accountsOfOwners(db, 'organization', orgs))];
}

/**
 * An account the caller may act on: their own by default; another id only when it is an
 * organization's account and the caller holds org.manage_payouts there. Anything else 404.
 */
export async function resolveAccount(db: AppContext['db'], actor: Actor, accountId: string | undefined): Promise<AccountRow> {
  const own = await ownAccount(db, actor);
  if (accountId === undefined || accountId === own?.id) {
    if (!own) throw accountNotFound();
    return own;
  }
  const other = await repo.accountById(db, accountId);
  if (other?.owner_type !== 'organization') throw accountNotFound();
  const orgs = await orgsWherePermitted(db, actor, 'org.manage_payouts');
  if (!orgs.includes(other.owner_id)) throw accountNotFound();
  return other;
}

function siteUrl(ctx: AppContext, path: string): string {
  return new URL(path, ctx.config.SITE_URL).toString();
}

/**
 * Creates (once: the idempotency key names the holder) or resumes the connected account of the
 * caller, or of the organization `orgId` (the route's managesOrganizationPayouts policy has
 * checked org.manage_payouts), and answers a fresh onboarding link.
 */
export async function startOnboarding(ctx: AppContext, actor: Actor, orgId?: string) {
  const holder: { type: OwnerType; id: string } = orgId ? { type: 'organization', id: orgId } : { type: 'user', id: actor.userId };
  const find = async () => (await repo.accountsOf(ctx.db, holder.type, holder.id))[0];
  let account = await find();
  if (!account) {
    const created = await ctx.payments.createConnectedAccount({
      email: actor.email,
      metadata: { kind: 'connected_account', owner_type: holder.type, owner_id: holder.id },
      idempotencyKey: `connect:${holder.type}:${holder.id}`,
    });
    await repo.insertAccount(ctx.db, {
      id: created.id,
      owner_type: holder.type,
      owner_id: holder.id,
      charges_enabled: created.charges_enabled,
      payouts_enabled: created.payouts_enabled,
      details_submitted: created.details_submitted,
      status: statusOf(created),
    });
    account = (await find())!;
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
