import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { ProcessorEvent } from '../../integrations/payments';
import type { WebhookHandlerMap, WebhookOutcome } from '../webhooks';
import { applyAccountState } from './accounts.service';
import * as repo from './payouts.repo';
import type { OwnerType } from './payouts.repo';
import { applyPayout, arrivalDate } from './payouts.service';

/**
 * account.updated: syncs the account's capabilities and status. An account the service created
 * but whose row a crash lost is recorded from the event's own metadata (the holder it names).
 */
async function accountUpdated(ctx: AppContext, event: ProcessorEvent, trx: Knex.Transaction): Promise<WebhookOutcome> {
  const obj = event.data.object;
  const id = typeof obj.id === 'string' ? obj.id : event.account;
  if (!id) return 'ignored';
  let row = await repo.accountById(trx, id, { lock: true });
  if (!row) {
    const md = (obj.metadata ?? {}) as Record<string, string>;
    const ownerType = md.owner_type as OwnerType;
    if ((ownerType !== 'user' && ownerType !== 'organization') || !/^[0-9a-f-]{36}$/i.test(md.owner_id ?? '')) {
      ctx.log.warn({ eventId: event.id, accountId: id }, 'account.updated for an account the service does not know');
      return 'ignored';
    }
    await repo.insertAccount(trx, { id, owner_type: ownerType, owner_id: md.owner_id });
    row = (await repo.accountById(trx, id, { lock: true }))!;
  }
  const state = { id, charges_enabled: !!obj.charges_enabled, payouts_enabled: !!obj.payouts_enabled, details_submitted: !!obj.details_submitted };
  await applyAccountState(trx, row, state, new Date(event.created * 1000));
  return 'applied';
}

/** payout.paid / payout.failed are Connect events: `event.account` names the connected account. */
function payoutEvent(status: 'paid' | 'failed') {
  return async (ctx: AppContext, event: ProcessorEvent, trx: Knex.Transaction): Promise<WebhookOutcome> => {
    const obj = event.data.object;
    const account = event.account ? await repo.accountById(trx, event.account, { lock: true }) : undefined;
    if (!account || typeof obj.id !== 'string' || !Number.isSafeInteger(obj.amount) || obj.amount < 0 || typeof obj.currency !== 'string') {
      ctx.log.warn({ eventId: event.id, account: event.account }, `payout.${status} for no known connected account, or malformed`);
      return 'ignored';
    }
    await applyPayout(trx, account, { id: obj.id, amount_cents: obj.amount, currency: obj.currency, status, arrival_date: arrivalDate(obj.arrival_date) }, event.id);
    return 'applied';
  };
}

export const payoutWebhookHandlers: WebhookHandlerMap = {
  'account.updated': accountUpdated,
  'payout.paid': payoutEvent('paid'),
  'payout.failed': payoutEvent('failed'),
};
