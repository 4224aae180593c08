import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import Stripe from 'stripe';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { enqueue } from '../../infra/jobs';
import type { PaymentProcessor } from './port';
import { createObject, getObject, updateObject } from './sandbox.repo';

/** Redelivers a sandbox event whose immediate delivery did not get a 2xx (the safety net). */
export const SANDBOX_WEBHOOK_QUEUE = 'sandbox-webhook';

/** What delivery needs; an AppContext fits. */
export interface DeliveryDeps {
  config: Config;
  db: Db;
  payments: Pick<PaymentProcessor, 'webhookSecret'>;
}

/** An event as the sandbox stores and sends it: Stripe's shape (the webhook route translates it, stripe-events.ts). */
export interface SandboxEvent {
  id: string;
  object: 'event';
  type: string;
  created: number;
  account?: string;
  data: { object: Record<string, any> };
}

// Only the signing helper is used; this client never makes a request.
const signer = new Stripe('sk_test_sandbox_offline');
const ATTEMPTS = 3;
const REQUEST_TIMEOUT_MS = 10_000;
// The redelivery job waits this long first, so an immediate delivery that succeeds makes it a no-op.
const SAFETY_NET_DELAY_MS = 30_000;

/** An event as Stripe shapes it (`evt_...`, `object: 'event'`, Connect events carry `account`). */
export function sandboxEvent(type: string, object: Record<string, unknown>, account?: string): SandboxEvent {
  return {
    id: `evt_sb_${randomBytes(12).toString('hex')}`,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    ...(account ? { account } : {}),
    data: { object },
  } as SandboxEvent;
}

/** SANDBOX_WEBHOOK_URL, else this process's own webhook route on the loopback address; null when set to `off`. */
export function webhookUrl(config: Config): string | null {
  if (config.SANDBOX_WEBHOOK_URL === 'off') return null;
  return config.SANDBOX_WEBHOOK_URL ?? `http://127.0.0.1:${config.PORT}/api/v1/webhooks/stripe`;
}

/**
 * Keeps events (in the caller's transaction, with the state change that caused them) and queues
 * their redelivery: a crash or a failing webhook never loses one. Deliver them after commit.
 */
export async function recordEvents(trx: Knex.Transaction, events: SandboxEvent[]): Promise<void> {
  for (const event of events) {
    await createObject(trx, 'event', event.id, { event, delivered_at: null });
    await enqueue(trx, SANDBOX_WEBHOOK_QUEUE, { event_id: event.id }, {
      runAt: new Date(Date.now() + SAFETY_NET_DELAY_MS),
      singletonKey: event.id,
      maxAttempts: 12,
    });
  }
}

/** One signed POST, exactly as Stripe sends it; true when the webhook answered 2xx. */
export async function postSigned(url: string, secret: string, event: SandboxEvent): Promise<boolean> {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret });
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': header, 'user-agent': 'Stripe/1.0 (+sandbox)' },
      body: payload,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Delivers recorded events in order, each retried a few times; answers whether all got a 2xx.
 * An event that never did stays undelivered and its queued job redelivers it later.
 */
export async function deliverEvents(deps: DeliveryDeps, events: SandboxEvent[], attempts = ATTEMPTS): Promise<boolean> {
  const url = webhookUrl(deps.config);
  // Deliveries off: the events stay recorded (and listed, like Stripe's GET /v1/events), undelivered;
  // the service's recheck and event catch-up find them. Nothing is "failing", so the answer is true.
  if (url === null) return true;
  const secret = await deps.payments.webhookSecret();
  let all = true;
  for (const event of events) {
    let ok = false;
    for (let i = 0; i < attempts && !ok; i += 1) {
      if (i > 0) await new Promise((r) => setTimeout(r, 150 * 2 ** i));
      ok = await postSigned(url, secret, event);
    }
    if (ok) await updateObject(deps.db, event.id, { delivered_at: new Date().toISOString() });
    all &&= ok;
  }
  return all;
}

/** The redelivery job: nothing to do once delivered; a failed POST throws so the queue backs off. */
export function redeliverHandler(deps: DeliveryDeps) {
  return async (payload: Record<string, unknown>): Promise<void> => {
    const stored = await getObject<{ event: SandboxEvent; delivered_at: string | null }>(deps.db, String(payload.event_id), 'event');
    if (!stored || stored.data.delivered_at || webhookUrl(deps.config) === null) return;
    if (!(await deliverEvents(deps, [stored.data.event], 1))) {
      throw new Error(`webhook delivery of ${stored.id} did not answer 2xx`);
    }
  };
}
