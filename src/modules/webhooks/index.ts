/** The processor webhook: signature check, exactly-once processing, dispatch by event type. */
export { RetryLater, type WebhookHandler, type WebhookHandlerMap, type WebhookOutcome } from './webhooks.types';
export { processEvent } from './webhooks.service';
export { byKind } from './by-kind';
export { paymentSuccessesSql } from './webhooks.repo';
export { cleanFee, processorFee, withPaymentFee } from './payment-fee';
export { refundHandler, type RefundablePayment } from './payment-refund';
