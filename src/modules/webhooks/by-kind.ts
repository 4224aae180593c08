import type { ProcessorEvent } from '../../integrations/payments/port';
import type { WebhookHandler, WebhookHandlerMap, WebhookOutcome } from './webhooks.types';

/** The `metadata.kind` every processor object the service creates carries (decisions.md "Paying"). */
export type PaymentKind = 'donation' | 'tip' | 'community_join';

/**
 * The kind an event's object names: its own metadata, else (invoices, subscriptions) the
 * metadata of the subscription it belongs to. Null for objects that carry none (disputes, payouts).
 */
export function kindOf(event: ProcessorEvent): string | null {
  const o = event.data?.object ?? {};
  const k = o.metadata?.kind ?? o.subscription_details?.metadata?.kind ?? o.parent?.subscription_details?.metadata?.kind;
  return typeof k === 'string' && k ? k : null;
}

/**
 * Merges each money module's WebhookHandlerMap into one, keyed by the kind of processor object
 * the module owns. Several modules may handle the same event type (checkout.session.completed
 * settles a donation, a tip or a community join): the merged handler dispatches on the object's
 * `metadata.kind`; an object of a kind nobody handles is ignored. An object without a kind (a
 * dispute, an account, a payout) goes to each module handling that type in turn until one
 * answers 'applied', so every module handler must leave objects it does not recognise alone
 * (answer 'ignored') — e.g. by looking its row up by the processor id.
 *
 * To add a module (tips, communities), export its map from its index.ts and add it to the call
 * in handlers.ts: `byKind({ donation: donationWebhooks, tip: tipWebhooks })`.
 */
export function byKind(maps: Partial<Record<PaymentKind, WebhookHandlerMap>>): WebhookHandlerMap {
  const types = new Set(Object.values(maps).flatMap((m) => Object.keys(m ?? {})));
  const out: WebhookHandlerMap = {};
  for (const type of types) {
    const entries = Object.entries(maps)
      .map(([kind, m]) => [kind, m?.[type]] as const)
      .filter((e): e is readonly [string, WebhookHandler] => typeof e[1] === 'function');
    const candidates = (event: ProcessorEvent) => {
      const kind = kindOf(event);
      return kind ? entries.filter(([k]) => k === kind) : entries;
    };
    const handler: WebhookHandler = async (ctx, event, trx, prefetched) => {
      const pre = (prefetched ?? {}) as Record<string, unknown>;
      for (const [kind, h] of candidates(event)) {
        const outcome: WebhookOutcome = (await h(ctx, event, trx, pre[kind])) ?? 'applied';
        if (outcome === 'applied') return outcome;
      }
      return 'ignored';
    };
    if (entries.some(([, h]) => h.prefetch)) {
      handler.prefetch = async (ctx, event) => {
        const pre: Record<string, unknown> = {};
        for (const [kind, h] of candidates(event)) if (h.prefetch) pre[kind] = await h.prefetch(ctx, event);
        return pre;
      };
    }
    out[type] = handler;
  }
  return out;
}
