import { donationWebhooks } from '../donations';
import { tipWebhooks } from '../tips';
import { communityWebhooks } from '../communities';
import { payoutWebhookHandlers } from '../payouts';
import { byKind } from './by-kind';
import type { WebhookHandlerMap } from './webhooks.types';

/**
 * Every processor event type the service handles, from each money module's index.ts
 * (donations, tips, payouts and connected accounts, communities). Types handled by no module
 * answer 200 and are recorded as ignored. Modules are merged by the `metadata.kind` of the
 * objects they own (see by-kind.ts): tips add `tip: tipWebhooks`, communities
 * `community_join: ...`; types no other module shares (account.updated, payout.*) may go in
 * any kind's map, or be spread in beside it.
 */
export const webhookHandlers: WebhookHandlerMap = {
  ...byKind({ donation: donationWebhooks, tip: tipWebhooks, community_join: communityWebhooks }),
  // Connected accounts and their payouts carry no payment kind; only the payouts module handles them.
  ...payoutWebhookHandlers,
};
