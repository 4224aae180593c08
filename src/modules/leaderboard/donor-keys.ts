import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { donorKeySecretRow } from './leaderboard.reads';

type Q = Db | Knex.Transaction;
export type DonorKind = 'guest' | 'anon';

/**
 * Public donor pages and anonymous leaderboard rows are keyed by the first 20 hex characters of
 * HMAC-SHA256(secret, "<kind>:<identity>"). The secret (app_secrets.donor_key_secret, made by the
 * migration) never leaves the database and the service, so nobody can derive a key from an
 * address or tell which account or address a key stands for. The SQL twin lives in the
 * migration's backfill and in the leaderboard refresh: hmac(kind || ':' || identity, secret, 'sha256').
 */
let secret: Promise<string> | null = null;

function donorKeySecret(db: Q): Promise<string> {
  secret ??= donorKeySecretRow(db).then((r) => {
    if (!r) {
      secret = null;
      throw new Error('donor_key_secret is missing (run the migrations)');
    }
    return r.value as string;
  });
  return secret;
}

export const donorKeyOf = (s: string, kind: DonorKind, identity: string) =>
  createHmac('sha256', s).update(`${kind}:${identity}`).digest('hex').slice(0, 20);

/** The identity a gift is given under: a guest's address for named guest gifts; the donor behind an anonymous gift. */
export function giftIdentity(g: { donation_id: string; donor_user_id: string | null; donor_email: string | null; anonymous: boolean }) {
  if (g.anonymous) {
    const id = g.donor_user_id ? `u:${g.donor_user_id}` : g.donor_email ? `e:${g.donor_email.toLowerCase()}` : `d:${g.donation_id}`;
    return { kind: 'anon' as const, identity: id };
  }
  if (!g.donor_user_id && g.donor_email) return { kind: 'guest' as const, identity: g.donor_email.toLowerCase() };
  return null; // a signed-in donor's named gifts count on their profile, not on a donor page
}

export async function rememberDonorKey(db: Q, kind: DonorKind, identity: string): Promise<string> {
  const key = donorKeyOf(await donorKeySecret(db), kind, identity);
  await db('donor_keys').insert({ kind, key, identity }).onConflict(['kind', 'identity']).ignore();
  return key;
}

export async function identityOf(db: Q, kind: DonorKind, key: string): Promise<string | undefined> {
  return (await db('donor_keys').where({ kind, key }).first('identity'))?.identity;
}
