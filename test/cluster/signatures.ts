import { createHmac } from 'node:crypto';

/**
 * A Stripe-Signature header over `payload` with one v1 signature per secret, as Stripe sends
 * during a roll of the endpoint's secret (the old and the new one both sign every delivery).
 */
export function stripeSignature(payload: string, secrets: string[], at = Math.floor(Date.now() / 1000)): string {
  return [`t=${at}`, ...secrets.map((s) => `v1=${createHmac('sha256', s).update(`${at}.${payload}`).digest('hex')}`)].join(',');
}
