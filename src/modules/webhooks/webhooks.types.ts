import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { EventOf, PaymentEvent, PaymentEventKind } from '../../integrations/payments';

/**
 * What a handler did with an event; recorded with the event id. `ignored` is a handled type
 * that changed nothing (e.g. an amount mismatch, logged), not an unknown type.
 */
export type WebhookOutcome = 'applied' | 'ignored' | 'duplicate';

/**
 * Handles one typed payment event (the adapters translate processor objects, see
 * integrations/payments/events.ts) inside the transaction that records its id, so its effect
 * and the record commit together (exactly once). Throw to roll back and answer 500 (the
 * processor retries); throw `RetryLater` when the event arrived before something it depends on.
 */
export type WebhookHandler<E extends PaymentEvent = PaymentEvent> = ((ctx: AppContext, event: E, trx: Knex.Transaction, prefetched?: unknown) => Promise<WebhookOutcome | void>) & {
  /**
   * Optional processor reads (e.g. a charge's fee) run BEFORE the transaction opens, so no
   * connection or row lock is held across a network call; the result is the handler's
   * `prefetched` argument. It may run for a duplicate too, so it must only read.
   */
  prefetch?: (ctx: AppContext, event: E) => Promise<unknown>;
};

/** A module's handlers, keyed by the typed event's kind; declared in its module file and collected in src/modules/index.ts. */
export type WebhookHandlerMap = { [K in PaymentEventKind]?: WebhookHandler<EventOf<K>> };

export class RetryLater extends Error {}
