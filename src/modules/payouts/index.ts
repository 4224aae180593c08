/**
 * Earnings, connected accounts, transfers of settled gifts to them, payouts and each payout's
 * split across the holder's campaigns (withdrawals).
 */
import { z } from 'zod';
import type { AppContext } from '../../context';
import type { Db } from '../../db/knex';
import { publicAccount } from './accounts.service';
import { accountsOf, payoutsOf, withdrawalsOf } from './payouts.repo';
import { holderEarnings } from './earnings.service';
import { accountRow, earningsAnswer, payoutsAnswer } from './payouts.schemas';

export { splitProportionally } from './split';
export { claimUserTransfer, onUserTransferConfirmed, type UserTransfer } from './user-transfers';
export { runCall as completeProcessorCall } from './settle';
export { callByKey, pendingOutOf } from './processor-calls.repo';
export { accountHolder, activeAccountIds } from './accounts.repo';
export { queueCall as queueProcessorCall } from './calls.queue';

export interface Withdrawal {
  id: string;
  payout_id: string;
  fundraiser_id: string;
  amount_cents: number;
  currency: string;
  status: 'pending' | 'in_transit' | 'paid' | 'failed';
  arrival_date: string | null;
  created_at: string;
}

/** A campaign's shares of its holder's payouts, newest first (the project-updates feed shows them as `withdrawal` items). */
export async function withdrawalsFor(db: Db, fundraiserId: string): Promise<Withdrawal[]> {
  const rows = await withdrawalsOf(db, fundraiserId);
  return rows.map((r: any) => ({
    id: r.id,
    payout_id: r.payout_id,
    fundraiser_id: r.fundraiser_id,
    amount_cents: Number(r.amount_cents),
    currency: String(r.currency).toUpperCase(),
    status: r.status,
    arrival_date: r.arrival_date ?? null,
    created_at: new Date(r.created_at).toISOString(),
  }));
}

/**
 * An organization's payouts read (org admin): its connected account (null before onboarding),
 * that account's payouts newest first, and the earnings of its campaigns.
 */
export async function organizationPayouts(ctx: AppContext, orgId: string, limit: number, offset: number) {
  const [account] = await accountsOf(ctx.db, 'organization', orgId);
  const { rows, total } = await payoutsOf(ctx.db, account ? [account.id] : [], limit, offset);
  return {
    data: rows.map((r: any) => ({ id: r.id, amount_cents: Number(r.amount_cents), currency: String(r.currency).toUpperCase(), status: r.status, arrival_date: r.arrival_date ?? null })),
    pagination: { limit, offset, total },
    account: account ? publicAccount(account) : null,
    earnings: await holderEarnings(ctx, { type: 'organization', id: orgId }),
  };
}

// A union, not .nullable(): the generator renders a nullable named schema as allOf [$ref, {type: [object, null]}], which null does not satisfy.
export const organizationPayoutsAnswer = payoutsAnswer.extend({ account: z.union([accountRow, z.null()]), earnings: earningsAnswer.shape.data });
