import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { keptSecret } from './app-secrets';

/**
 * Opaque tokens the service mints and later trusts (feed cursors, unsubscribe links): a JSON
 * payload and an HMAC-SHA256 over it, keyed by a secret generated once and kept in app_secrets,
 * so every replica and restart accepts the same tokens and nobody can forge one.
 */
const secrets = new WeakMap<object, Map<string, Promise<Buffer>>>();

async function loadSecret(db: Knex, name: string): Promise<Buffer> {
  return Buffer.from(await keptSecret(db, name, () => randomBytes(32).toString('base64url')), 'base64url');
}

/** The named secret, read once per database handle (a failed read is retried next time). */
export function appSecret(db: Knex, name: string): Promise<Buffer> {
  let byName = secrets.get(db);
  if (!byName) secrets.set(db, (byName = new Map()));
  let p = byName.get(name);
  if (!p) {
    p = loadSecret(db, name);
    byName.set(name, p);
    p.catch(() => byName!.delete(name));
  }
  return p;
}

const mac = (key: Buffer, purpose: string, body: string) => createHmac('sha256', key).update(`${purpose}.${body}`).digest().subarray(0, 18);

/** `purpose` separates token kinds signed with one key: a cursor is never an unsubscribe token. */
export function sign(key: Buffer, purpose: string, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(key, purpose, body).toString('base64url')}`;
}

/** The payload of a token this key signed for `purpose`, else null (malformed, forged, other purpose). */
export function verify(key: Buffer, purpose: string, token: unknown): unknown {
  if (typeof token !== 'string' || token.length > 1024) return null;
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
  if (!m) return null;
  const given = Buffer.from(m[2]!, 'base64url');
  const want = mac(key, purpose, m[1]!);
  if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
  try {
    return JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}
