import type { WebhookHandlerMap } from './webhooks.types';

/**
 * Every processor event type the service handles, from each money module's index.ts
 * (donations, tips, payouts and connected accounts, communities). Types handled by no module
 * answer 200 and are recorded as ignored.
 */
export const webhookHandlers: WebhookHandlerMap = {};
