import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { AccountUpdated, PayoutFailed, PayoutPaid } from '../../integrations/payments';
import type { WebhookHandlerMap, WebhookOutcome } from '../webhooks';
import { applyAccountState } from './accounts.service';
import * as repo from './payouts.repo';
import type { OwnerType } from './payouts.repo';
import { applyPayout } from './payouts.service';

/**
 * AccountUpdated: syncs the account's capabilities and status. An account the service created
 * but whose row a crash lost is recorded from the event's own metadata (the holder it names).
 */
async function accountUpdated(ctx: AppContext, event: AccountUpdated, trx: Knex.Transaction): Promise<WebhookOutcome> {
  const id = event.account_id;
  let row = await repo.accountById(trx, id, { lock: true });
  if (!row) {
    const ownerType = event.owner?.type as OwnerType | undefined;
    const ownerId = event.owner?.id ?? '';
    if ((ownerType !== 'user' && ownerType !== 'organization') || !/^[0-9a-f-]{36}$/i.test(ownerId)) {
      ctx.log.warn({ eventId: event.id, accountId: id }, 'account.updated for an account the service does not know');
      return 'ignored';
    }
    await repo.insertAccount(trx, { id, owner_type: ownerType, owner_id: ownerId });
    row = (await repo.accountById(trx, id, { lock: true }))!;
  }
  const state = { id, charges_enabled: event.charges_enabled, payouts_enabled: event.payouts_enabled, details_submitted: event.details_submitted };
  await applyAccountState(trx, row, state, event.created);
  return 'applied';
}

/** PayoutPaid / PayoutFailed are Connect events: `account_id` names the connected account. */
function payoutEvent(status: 'paid' | 'failed') {
  return async (ctx: AppContext, event: PayoutPaid | PayoutFailed, trx: Knex.Transaction): Promise<WebhookOutcome> => {
    const account = event.account_id ? await repo.accountById(trx, event.account_id, { lock: true }) : undefined;
    if (!account) {
      ctx.log.warn({ eventId: event.id, account: event.account_id }, `payout.${status} for no known connected account`);
      return 'ignored';
    }
    await applyPayout(trx, account, { ...event.payout, status }, event.id);
    return 'applied';
  };
}

/** Connected accounts and their payouts carry no payment ref: only the payouts module handles them. */
export const payoutWebhookHandlers: WebhookHandlerMap = {
  AccountUpdated: accountUpdated,
  PayoutPaid: payoutEvent('paid'),
  PayoutFailed: payoutEvent('failed'),
};
