import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { pageLimit, pageOffset } from '../../http/schema-helpers';
import type { DeliveryRow, EndpointRow } from './webhook-endpoints.repo';

/** Event types an endpoint may ask for (`ping` comes only from the test route). */
export const WEBHOOK_EVENT_TYPES = [
  'donation.paid',
  'donation.refunded',
  'fundraiser.published',
  'fundraiser.goal_reached',
  'comment.created',
  'update.posted',
  'payout.paid',
  'payout.failed',
  'recurring_gift.started',
  'recurring_gift.canceled',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | 'ping';

const url = z
  .string()
  .trim()
  .max(2048, { message: 'must be at most 2048 characters' })
  .url({ message: 'must be an absolute http(s) URL' })
  .describe('Where deliveries are POSTed: https in production; loopback, private, link-local and metadata hosts are refused (400 WEBHOOK_URL_REFUSED)');

const events = z
  .union([z.tuple([z.literal('*')]), z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1, { message: 'must name at least one event type' }).max(WEBHOOK_EVENT_TYPES.length)])
  .transform((list) => [...new Set<string>(list)])
  .describe("The event types to receive, or ['*'] for all");

const description = z.string().trim().max(500, { message: 'must be at most 500 characters' }).nullable();

export const createBody = z.object({
  url,
  events,
  description: description.optional(),
  organization_id: uuid.nullable().optional().describe('An organization where the caller holds org.update_settings: the endpoint then receives its events'),
});

export const patchBody = z
  .object({ url: url.optional(), events: events.optional(), description: description.optional(), status: z.enum(['enabled', 'disabled']).optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'name at least one of url, events, description, status' });

export const listQuery = z.object({ limit: pageLimit(), offset: pageOffset() });
export const deliveryParams = z.object({ id: uuid, deliveryId: uuid });

const pagination = z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() });

export const endpointRead = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  organization_id: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  created_at: z.string(),
}).meta({ id: 'WebhookEndpoint' });
export const endpointWithSecret = endpointRead.extend({ secret: z.string().describe('whsec_ + base64: shown only on creation and rotation') }).meta({ id: 'WebhookEndpointWithSecret' });

export const deliveryRead = z.object({
  id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
}).meta({ id: 'WebhookDelivery' });

export const endpointEnvelope = z.object({ data: endpointRead });
export const createdEnvelope = z.object({ data: endpointWithSecret });
export const endpointList = z.object({ data: z.array(endpointRead), pagination });
export const secretEnvelope = z.object({ data: z.object({ secret: z.string() }) });
export const deliveryList = z.object({ data: z.array(deliveryRead), pagination });
export const accepted = z.object({ message: z.string(), delivery_id: z.string() });

export function toEndpoint(r: EndpointRow): z.infer<typeof endpointRead> {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    description: r.description,
    organization_id: r.organization_id,
    status: r.status,
    created_at: new Date(r.created_at).toISOString(),
  };
}

export function toDelivery(r: DeliveryRow): z.infer<typeof deliveryRead> {
  return {
    id: r.id,
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status,
    attempts: r.attempts,
    last_status_code: r.last_status_code,
    // Only a delivery still waiting has a next attempt.
    next_attempt_at: r.status === 'pending' && r.next_attempt_at ? new Date(r.next_attempt_at).toISOString() : null,
    created_at: new Date(r.created_at).toISOString(),
  };
}
