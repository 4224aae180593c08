import type Stripe from 'stripe';
import type { ConnectedAccount, ProcessorPayout } from './port';

/** How the Stripe adapter reaches Stripe, and its Connect objects in the port's terms. */

/** STRIPE_API_URL (e.g. http://127.0.0.1:12111 for stripe-mock) as the SDK's host options. */
export function hostOptions(apiUrl: string | undefined): Stripe.StripeConfig {
  if (!apiUrl) return {};
  const u = new URL(apiUrl);
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80,
    protocol: u.protocol.replace(':', '') as 'http' | 'https',
  };
}

export function connectedAccountOf(a: Stripe.Account): ConnectedAccount {
  return { id: a.id, charges_enabled: !!a.charges_enabled, payouts_enabled: !!a.payouts_enabled, details_submitted: !!a.details_submitted };
}

export function payoutOf(p: Stripe.Payout): ProcessorPayout {
  return {
    id: p.id,
    amount_cents: p.amount,
    currency: p.currency,
    status: p.status as ProcessorPayout['status'],
    arrival_date: p.arrival_date ? new Date(p.arrival_date * 1000).toISOString().slice(0, 10) : null,
  };
}
