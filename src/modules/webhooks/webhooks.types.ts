import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { ProcessorEvent } from '../../integrations/payments/port';

/**
 * What a handler did with an event; recorded with the event id. `ignored` is a handled type
 * that changed nothing (e.g. an amount mismatch, logged), not an unknown type.
 */
export type WebhookOutcome = 'applied' | 'ignored' | 'duplicate';

/**
 * Handles one processor event inside the transaction that records its id, so its effect and
 * the record commit together (exactly once). Throw to roll back and answer 500 (the processor
 * retries); throw `RetryLater` when the event arrived before something it depends on.
 */
export type WebhookHandler = (ctx: AppContext, event: ProcessorEvent, trx: Knex.Transaction) => Promise<WebhookOutcome | void>;

/** A module's handlers, keyed by processor event type; collected in webhooks/handlers.ts. */
export type WebhookHandlerMap = Record<string, WebhookHandler>;

export class RetryLater extends Error {}
