import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import type { PaymentProcessor } from './port';
import { SandboxProcessor } from './sandbox';
import { StripeProcessor } from './stripe';
import type { JobWorker } from '../../infra/jobs';
import { redeliverHandler, SANDBOX_WEBHOOK_QUEUE, type DeliveryDeps } from './sandbox-delivery';
import { SANDBOX_PAYOUT_QUEUE, settlePayoutHandler } from './sandbox-payouts';

export type * from './port';
export type * from './events';
export { WebhookPayloadError } from './events';
export { processorStoreUnavailable, processorUnreachable } from './unreachable';
export { giftMetadata, processorOrigin, tipMetadata, type GiftDescription, type ProcessorGift, type ProcessorTip, type TipDescription } from './gift-metadata';
export { joinMetadata, type JoinDescription, type ProcessorJoin } from './join-metadata';
export { sandboxFee } from './sandbox-fees';
export { HANDLED_EVENT_TYPES } from './stripe-events';
export { recordBalanceTxn as recordSandboxBalanceTxn } from './sandbox-balance';

/** Stripe when STRIPE_SECRET_KEY is set (STRIPE_API_URL may name a Stripe-compatible server), else the sandbox. */
export function createPaymentProcessor(config: Config, db: Db): PaymentProcessor {
  return config.STRIPE_SECRET_KEY ? new StripeProcessor(config, db) : new SandboxProcessor(db, config);
}

export { SandboxActionError } from './sandbox-actions';
export * as sandboxActions from './sandbox-actions';
export { deliverEvents, webhookUrl, type DeliveryDeps, type SandboxEvent } from './sandbox-delivery';
export { connectedBalance } from './sandbox-payouts';

/** The sandbox's queues: event redelivery and delayed payouts (only while the sandbox is the processor). */
export function registerSandboxJobs(jobs: JobWorker, deps: DeliveryDeps): void {
  jobs.register(SANDBOX_WEBHOOK_QUEUE, redeliverHandler(deps));
  jobs.register(SANDBOX_PAYOUT_QUEUE, settlePayoutHandler(deps));
}
export { getObject as getSandboxObject } from './sandbox.repo';
export { advanceClock as advanceSandboxClock, clockNowS as sandboxClockNowS } from './sandbox-clock';
export { failNext as failNextSandboxRenewal, findSubscription as findSandboxSubscription, renewNextDue as renewNextDueSandbox, MAX_ATTEMPTS as SANDBOX_MAX_ATTEMPTS } from './sandbox-renewals';
