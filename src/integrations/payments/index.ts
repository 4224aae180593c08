import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import type { PaymentProcessor } from './port';
import { SandboxProcessor } from './sandbox';
import { StripeProcessor } from './stripe';

export type * from './port';
export { sandboxFee } from './sandbox-fees';

/** Stripe when STRIPE_SECRET_KEY is set (STRIPE_API_URL may name a Stripe-compatible server), else the sandbox. */
export function createPaymentProcessor(config: Config, db: Db): PaymentProcessor {
  return config.STRIPE_SECRET_KEY ? new StripeProcessor(config, db) : new SandboxProcessor(db, config);
}
