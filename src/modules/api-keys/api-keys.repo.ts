import type { Knex } from 'knex';
import { ACTIVE_KEY_OWNERS } from './api-keys.reads';

export interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  key_hash: string;
  prefix: string;
  scopes: string[];
  last_used_at: Date | null;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

const PUBLIC_COLUMNS = ['id', 'name', 'prefix', 'scopes', 'last_used_at', 'expires_at', 'revoked_at', 'created_at'] as const;

export async function insertKey(
  db: Knex | Knex.Transaction,
  row: Pick<ApiKeyRow, 'user_id' | 'name' | 'key_hash' | 'prefix' | 'scopes' | 'expires_at' | 'created_at'>,
): Promise<ApiKeyRow> {
  const [r] = await db('api_keys').insert(row).returning('*');
  return r;
}

/** Newest first; never the hash. */
export async function listForUser(db: Knex, userId: string, includeRevoked: boolean) {
  const q = db('api_keys').select(PUBLIC_COLUMNS).where({ user_id: userId });
  if (!includeRevoked) q.whereNull('revoked_at');
  return q.orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'desc' },
  ]) as Promise<Array<Omit<ApiKeyRow, 'user_id' | 'key_hash'>>>;
}

/** Revokes one of the owner's active keys; false when unknown, someone else's or already revoked. */
export async function revokeForUser(db: Knex, userId: string, id: string): Promise<boolean> {
  const n = await db('api_keys').where({ id, user_id: userId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  return n > 0;
}

/** Sign-out-everywhere: revokes every active key of the user for good; returns how many. */
export async function revokeAllForUser(db: Knex | Knex.Transaction, userId: string): Promise<number> {
  return db('api_keys').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
}

export interface KeyOwner {
  key_id: string;
  user_id: string;
  email: string;
  roles: string[];
  email_verified: boolean;
}

/**
 * Looks a key up by hash and, when it is usable (not revoked, not expired, owner active),
 * stamps last_used_at in the same statement. Suspension is checked live, so a suspended
 * owner's keys work again after reactivation.
 */
export async function useKey(db: Knex, keyHash: string): Promise<KeyOwner | undefined> {
  const r = await db.raw(
    `update api_keys k set last_used_at = now()
       from (${ACTIVE_KEY_OWNERS}) u
      where k.key_hash = ? and u.id = k.user_id
        and k.revoked_at is null and k.expires_at > now()
      returning k.id as key_id, u.id as user_id, u.email, u.roles, u.email_verified`,
    [keyHash],
  );
  return r.rows[0];
}
