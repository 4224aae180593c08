/**
 * Outbound webhooks for integrators (docs/decisions/0017-outbound-webhooks.md): endpoints, their signed deliveries and
 * the delivery log. Its route table, subscribers and delivery job are declared in its module file
 * (collected by src/modules/index.ts). (The inbound Stripe webhook is src/modules/webhooks/.)
 */
export { WEBHOOK_DELIVERY_QUEUE } from './webhook-endpoints.delivery';
export { pruneWebhookDeliveries } from './webhook-endpoints.prune';
export { disableAllForUser } from './webhook-endpoints.repo';
