import type { PaymentEvent, PaymentKind } from '../../integrations/payments';
import type { WebhookHandler, WebhookHandlerMap, WebhookOutcome } from './webhooks.types';

export type { PaymentKind } from '../../integrations/payments';

/**
 * Merges each money module's WebhookHandlerMap into one, keyed by the kind of row the module
 * owns. Several modules may handle the same event kind (CheckoutCompleted settles a donation, a
 * tip or a community join): the merged handler dispatches on the event's `ref.kind`; a ref of a
 * kind nobody handles is ignored. An event without a ref (a dispute, a refund of a charge
 * without metadata) goes to each module handling that kind in turn until one answers
 * 'applied', so every module handler must leave events it does not recognise alone (answer
 * 'ignored'), e.g. by looking its row up by the processor id.
 */
export function byKind(maps: Partial<Record<PaymentKind, WebhookHandlerMap>>): WebhookHandlerMap {
  const kinds = new Set(Object.values(maps).flatMap((m) => Object.keys(m ?? {}))) as Set<keyof WebhookHandlerMap>;
  const out: Record<string, WebhookHandler> = {};
  for (const kind of kinds) {
    const entries = Object.entries(maps)
      .map(([refKind, m]) => [refKind, m?.[kind] as WebhookHandler | undefined] as const)
      .filter((e): e is readonly [string, WebhookHandler] => typeof e[1] === 'function');
    const candidates = (event: PaymentEvent) => (event.ref ? entries.filter(([k]) => k === event.ref!.kind) : entries);
    const handler: WebhookHandler = async (ctx, event, trx, prefetched) => {
      const pre = (prefetched ?? {}) as Record<string, unknown>;
      for (const [refKind, h] of candidates(event)) {
        const outcome: WebhookOutcome = (await h(ctx, event, trx, pre[refKind])) ?? 'applied';
        if (outcome === 'applied') return outcome;
      }
      return 'ignored';
    };
    if (entries.some(([, h]) => h.prefetch)) {
      handler.prefetch = async (ctx, event) => {
        const pre: Record<string, unknown> = {};
        for (const [refKind, h] of candidates(event)) if (h.prefetch) pre[refKind] = await h.prefetch(ctx, event);
        return pre;
      };
    }
    out[kind] = handler;
  }
  return out as WebhookHandlerMap;
}
