import type { Knex } from 'knex';
import { Webhook } from 'standardwebhooks';
import type { AppContext } from '../../context';
import { notFound } from '../../http/errors';
import { enqueue, type JobHandler } from '../../infra/jobs';
import { recordWebhookDelivery } from '../../infra/metrics';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import * as repo from './webhook-endpoints.repo';
import type { DeliveryRow, EndpointRow } from './webhook-endpoints.repo';
import { DELIVERY_TIMEOUT_MS, postOnce, type SendResult } from './webhook-endpoints.send';
import { guardOptions, UrlRefused, vetUrl } from './url-guard';

/**
 * One job per delivery attempt: each endpoint's deliveries wait, fail and back off on their own
 * schedule, never behind another endpoint's. The job carries the attempt number it is for, so a
 * duplicate job, or a scheduled retry overtaken by a manual one, sends nothing twice.
 */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-endpoints.deliver';

/** Waits after failed attempt 1, 2, ... (docs/decisions/0017-outbound-webhooks.md); after the last, `failed`. */
export const RETRY_DELAYS_S = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600, 10 * 3600];

export function retryDelayMs(attempt: number): number | null {
  const s = RETRY_DELAYS_S[attempt - 1];
  return s === undefined ? null : s * 1000;
}

/** Records a delivery of one event to one endpoint and queues its first attempt, in `trx`. */
export async function queueDelivery(
  trx: Knex.Transaction,
  endpointId: string,
  eventId: string,
  type: string,
  at: Date,
  data: Record<string, unknown>,
): Promise<DeliveryRow | undefined> {
  const payload = JSON.stringify({ type, timestamp: at.toISOString(), data });
  const d = await repo.insertDelivery(trx, { endpoint_id: endpointId, event_id: eventId, event_type: type, payload });
  if (d) await enqueue(trx, WEBHOOK_DELIVERY_QUEUE, { delivery_id: d.id, attempt: 1 });
  return d;
}

/** POST .../deliveries/{id}/retry: one more attempt now, whatever the delivery's state. */
export async function retryDelivery(ctx: AppContext, endpoint: EndpointRow, deliveryId: string) {
  const d = await repo.deliveryById(ctx.db, deliveryId);
  if (!d || d.endpoint_id !== endpoint.id) throw notFound('Webhook delivery');
  await ctx.db.transaction(async (trx) => {
    const attempt = await repo.reopenDelivery(trx, d.id);
    await enqueue(trx, WEBHOOK_DELIVERY_QUEUE, { delivery_id: d.id, attempt });
  });
  return { message: 'Retry queued', delivery_id: d.id };
}

/** Signs and sends one attempt; a refused address is final, an unresolvable name is retried. */
async function attemptOnce(ctx: AppContext, ep: EndpointRow, d: DeliveryRow, timeoutMs: number): Promise<SendResult & { final: boolean }> {
  if (ep.status === 'disabled' && d.event_type !== 'ping') return { ok: false, statusCode: null, error: 'endpoint disabled', final: true };
  let target;
  try {
    target = await vetUrl(ep.url, guardOptions(ctx.config));
  } catch (err) {
    if (!(err instanceof UrlRefused)) throw err;
    return { ok: false, statusCode: null, error: err.message, final: !err.transient };
  }
  const now = new Date();
  const headers = {
    'webhook-id': d.event_id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(ep.secret).sign(d.event_id, now, d.payload),
  };
  // A client span of its own inside the delivery job's span, so a trace shows each attempt's answer.
  const sent = await trace.getTracer('webhook-endpoints').startActiveSpan(
    'webhook POST',
    { kind: SpanKind.CLIENT, attributes: { 'webhook.endpoint_id': ep.id, 'webhook.event_type': d.event_type, 'webhook.id': d.event_id } },
    async (span) => {
      try {
        const r = await postOnce(target, headers, d.payload, timeoutMs);
        if (r.statusCode !== null) span.setAttribute('http.response.status_code', r.statusCode);
        if (!r.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: r.error ?? undefined });
        return r;
      } finally {
        span.end();
      }
    },
  );
  return { ...sent, final: false };
}

/** The delivery job (runs outside any transaction: the network call must not hold one open). */
export function deliveryHandler(ctx: AppContext, opts: { timeoutMs?: number } = {}): JobHandler {
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return async (payload) => {
    const id = String(payload.delivery_id);
    const attempt = Number(payload.attempt);
    const d = await repo.deliveryById(ctx.db, id);
    if (!d || d.status !== 'pending' || d.attempts !== attempt - 1) return;
    const ep = await repo.endpointById(ctx.db, d.endpoint_id);
    if (!ep) return;
    const r = await attemptOnce(ctx, ep, d, timeoutMs);
    const delay = r.ok || r.final ? null : retryDelayMs(attempt);
    const nextAt = delay === null ? null : new Date(Date.now() + delay);
    const status = r.ok ? 'succeeded' : nextAt ? 'pending' : 'failed';
    await ctx.db.transaction(async (trx) => {
      const recorded = await repo.recordAttempt(trx, id, attempt, { status, statusCode: r.statusCode, error: r.error, nextAt });
      if (recorded && nextAt) await enqueue(trx, WEBHOOK_DELIVERY_QUEUE, { delivery_id: id, attempt: attempt + 1 }, { runAt: nextAt });
    });
    recordWebhookDelivery(status === 'pending' ? 'retrying' : status);
    ctx.log.info({ deliveryId: id, endpointId: ep.id, eventType: d.event_type, attempt, status, statusCode: r.statusCode, error: r.error }, 'webhook delivery attempt');
  };
}

export function registerWebhookEndpointJobs(ctx: AppContext): void {
  ctx.jobs.register(WEBHOOK_DELIVERY_QUEUE, deliveryHandler(ctx));
}
