import type { Knex } from 'knex';
import { ApiError } from '../../http/errors';
import { appSecret, sign, verify } from '../../infra/signed-token';
import type { FeedKey } from './feed.updates.reads';

const SECRET = 'campaign_updates_cursor_secret';
const PURPOSE = 'campaign-updates-cursor';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export const invalidCursor = () => new ApiError(400, 'Invalid cursor', 'The cursor is not one this service issued; start again without it');

/** The caller's id is signed in too: one user's cursor is no key to another's feed. */
export async function mintCursor(db: Knex, userId: string, key: FeedKey): Promise<string> {
  return sign(await appSecret(db, SECRET), PURPOSE, { u: userId, t: key.ts, i: key.id });
}

export async function readCursor(db: Knex, userId: string, cursor: string): Promise<FeedKey> {
  const p = verify(await appSecret(db, SECRET), PURPOSE, cursor) as { u?: unknown; t?: unknown; i?: unknown } | null;
  if (!p || p.u !== userId || typeof p.t !== 'string' || !TS.test(p.t) || typeof p.i !== 'string' || !UUID.test(p.i)) throw invalidCursor();
  return { ts: p.t, id: p.i };
}
