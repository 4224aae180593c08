import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/knex';
import type { Actor, PlatformRole } from '../../http/actor';
import { ApiError } from '../../http/errors';
import { sha256Hex } from '../../infra/hash';
import * as repo from './api-keys.repo';

export const KEY_PREFIX = 'ak_live_';
const KEY_SHAPE = /^ak_live_[0-9a-f]{64}$/;
/** Characters of the key shown as its `prefix`. */
const DISPLAY_PREFIX_LENGTH = 12;

const invalidKey = () => new ApiError(401, 'Invalid API key', 'The API key is not valid');

/** Resolves `ak_live_...`; throws 401 `Invalid API key` for unknown, revoked, expired or inactive owner. */
export async function resolveApiKey(ctx: { db: Db }, token: string): Promise<Actor> {
  if (!KEY_SHAPE.test(token)) throw invalidKey();
  const owner = await repo.useKey(ctx.db, sha256Hex(token));
  if (!owner) throw invalidKey();
  return {
    userId: owner.user_id,
    email: owner.email,
    roles: owner.roles as PlatformRole[],
    credential: 'api_key',
    emailVerified: owner.email_verified,
    impersonatedBy: null,
    apiKeyId: owner.key_id,
  };
}

/** One year after `from`, by the calendar. */
export function oneYearAfter(from: Date): Date {
  const d = new Date(from.getTime());
  d.setUTCFullYear(d.getUTCFullYear() + 1);
  return d;
}

function expiryError(message: string): ApiError {
  return new ApiError(400, 'Validation failed', `body.expires_at: ${message}`, {
    details: [{ path: 'body.expires_at', message }],
  });
}

/** An ISO 8601 date or date-time; one without an offset is UTC (never the server's time zone). */
export function parseExpiry(value: string): Date {
  const hasZone = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/.test(value);
  return new Date(value.includes('T') && !hasZone ? `${value}Z` : value);
}

/** Creates a key; the secret is returned once and only its SHA-256 is stored. */
export async function createKey(ctx: { db: Db }, userId: string, input: { name: string; expires_at?: string | null }) {
  // created_at is set here, not by the database, so the default expiry is exactly one year after it.
  const now = new Date();
  const latest = oneYearAfter(now);
  let expiresAt = latest;
  if (input.expires_at) {
    expiresAt = parseExpiry(input.expires_at);
    if (expiresAt.getTime() <= now.getTime()) throw expiryError('must be in the future');
    if (expiresAt.getTime() > latest.getTime()) throw expiryError('must be at most one year after creation');
  }
  const secret = KEY_PREFIX + randomBytes(32).toString('hex');
  const row = await repo.insertKey(ctx.db, {
    user_id: userId,
    name: input.name,
    key_hash: sha256Hex(secret),
    prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
    scopes: ['*'],
    expires_at: expiresAt,
    created_at: now,
  });
  return {
    message: 'API key created. Copy it now: it is shown only once.',
    api_key: secret,
    key: {
      id: row.id,
      name: row.name,
      prefix: row.prefix,
      scopes: row.scopes,
      expires_at: row.expires_at.toISOString(),
      created_at: row.created_at.toISOString(),
    },
  };
}
