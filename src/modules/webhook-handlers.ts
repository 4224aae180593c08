import { donationWebhooks } from './donations';
import { tipWebhooks } from './tips';
import { communityWebhooks } from './communities';
import { payoutWebhookHandlers } from './payouts';
import { byKind, type WebhookHandlerMap } from './webhooks';

/**
 * A collector beside index.ts and integrity.ts, not inside the webhooks module: the money
 * modules import the webhooks module's handler types, so the map of their handlers lives above
 * both (modules/index.ts hands it to the webhook route table).
 *
 * Every typed payment event kind the service handles (integrations/payments/events.ts), from
 * each money module's index.ts (donations, tips, payouts and connected accounts, communities).
 * Kinds handled by no module answer 200 and are recorded as ignored. Modules are merged by the
 * `ref.kind` of the events they own (see by-kind.ts); kinds no other module shares
 * (AccountUpdated, Payout*) are spread in beside them.
 */
export const webhookHandlers: WebhookHandlerMap = {
  ...byKind({ donation: donationWebhooks, tip: tipWebhooks, community_join: communityWebhooks }),
  // Connected accounts and their payouts carry no payment kind; only the payouts module handles them.
  ...payoutWebhookHandlers,
};
