/**
 * Outbound webhooks for integrators (decisions.md Part 3): endpoints, their signed deliveries and
 * the delivery log. The route table is collected by src/modules/index.ts; the subscribers and the
 * delivery job by src/modules/subscribers.ts and src/jobs/index.ts. (The inbound Stripe webhook
 * is src/modules/webhooks/.)
 */
export { webhookEndpointSubscribers } from './webhook-endpoints.events';
export { registerWebhookEndpointJobs, WEBHOOK_DELIVERY_QUEUE } from './webhook-endpoints.delivery';
export { pruneWebhookDeliveries } from './webhook-endpoints.prune';
