import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/knex';

const NAME = 'sandbox_webhook_secret';

/**
 * The sandbox's webhook signing secret: generated once and kept in the database, so every
 * replica and restart signs and verifies with the same one.
 */
export async function sandboxWebhookSecret(db: Db): Promise<string> {
  const fresh = `whsec_${randomBytes(24).toString('base64url')}`;
  await db('app_secrets').insert({ name: NAME, value: fresh }).onConflict('name').ignore();
  const row = await db('app_secrets').where({ name: NAME }).first('value');
  return row.value as string;
}
