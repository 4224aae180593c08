import type { AppContext } from '../../context';
import { rawTransaction } from '../../db/raw-transaction';
import type { PaymentEvent } from '../../integrations/payments';
import { claimEvent, recordOutcome } from './webhooks.repo';
import type { WebhookHandler, WebhookHandlerMap, WebhookOutcome } from './webhooks.types';

/**
 * Processes one verified, typed event exactly once: the event id is claimed in the same
 * transaction as the handler's effect (a handler's `prefetch` reads the processor before it
 * opens). Kinds no module handles are recorded as ignored. A handler failure rolls the whole
 * transaction back (the id too) and propagates, so the route answers 500 and the processor retries.
 * The transaction is begun and ended on the pg connection, not by knex (db/raw-transaction.ts):
 * the same isolation, statements and locks, without knex's per-transaction cost.
 */
export async function processEvent(ctx: AppContext, handlers: WebhookHandlerMap, event: PaymentEvent): Promise<WebhookOutcome> {
  const handler = handlers[event.kind] as WebhookHandler | undefined;
  const prefetched = handler?.prefetch ? await handler.prefetch(ctx, event) : undefined;
  return rawTransaction(ctx.db, async (trx) => {
    if (!(await claimEvent(trx, event))) return 'duplicate';
    const outcome: WebhookOutcome = handler ? ((await handler(ctx, event, trx, prefetched)) ?? 'applied') : 'ignored';
    // claimEvent wrote 'applied'; only another outcome needs a statement.
    if (outcome !== 'applied') await recordOutcome(trx, event.id, outcome);
    return outcome;
  });
}
