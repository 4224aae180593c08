import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/knex';
import { keptSecret } from '../../infra/app-secrets';

const NAME = 'sandbox_webhook_secret';

/**
 * The sandbox's webhook signing secret: generated once and kept in the database, so every
 * replica and restart signs and verifies with the same one.
 */
export async function sandboxWebhookSecret(db: Db): Promise<string> {
  return keptSecret(db, NAME, () => `whsec_${randomBytes(24).toString('base64url')}`);
}

/**
 * STRIPE_WEBHOOK_SECRET as a list: Stripe keeps a rolled endpoint secret valid for up to a day,
 * so the old and the new one are configured together. The first one listed is the one the
 * sandbox signs with.
 */
export function configuredWebhookSecrets(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
