import type { Db } from '../db/knex';

/** How long a key is kept (docs/decisions/0010-idempotency-keys.md): after this a key is free again and its row is pruned. */
export const KEEP_HOURS = 24;
/**
 * An in-flight claim older than this belongs to a process that died mid-request (no request
 * runs this long: the server's timeouts end it first), so a retry may take the key over rather
 * than wait out the 24 hours.
 */
export const STALE_IN_FLIGHT_MINUTES = 5;

export interface KeyRequest {
  scope: string;
  key: string;
  method: string;
  path: string;
  fingerprint: string;
}

export interface StoredKey extends KeyRequest {
  state: 'in_flight' | 'complete';
  claim: string;
  status_code: number | null;
  response_headers: Record<string, string> | null;
  response_body: Buffer | null;
}

/**
 * Claims the key for this request in one statement (its own short transaction, before the
 * handler): a new key, one kept past 24 hours, or a stale in-flight one becomes ours; otherwise
 * the row as another request left it. Concurrent claims of one key serialise on the row, so
 * exactly one wins.
 */
export async function claimKey(db: Db, req: KeyRequest, claim: string): Promise<{ claimed: true } | { claimed: false; row: StoredKey | undefined }> {
  const { rows } = await db.raw(
    `insert into idempotency_keys (scope, key, method, path, fingerprint, state, claim, created_at)
     values (?, ?, ?, ?, ?, 'in_flight', ?, now())
     on conflict (scope, key) do update
        set method = excluded.method, path = excluded.path, fingerprint = excluded.fingerprint,
            state = 'in_flight', claim = excluded.claim, created_at = now(),
            status_code = null, response_headers = null, response_body = null
      where idempotency_keys.created_at < now() - make_interval(hours => ${KEEP_HOURS})
         or (idempotency_keys.state = 'in_flight'
             and idempotency_keys.created_at < now() - make_interval(mins => ${STALE_IN_FLIGHT_MINUTES}))
     returning claim`,
    [req.scope, req.key, req.method, req.path, req.fingerprint, claim],
  );
  if (rows.length) return { claimed: true };
  const row = await db('idempotency_keys').where({ scope: req.scope, key: req.key }).first();
  return { claimed: false, row };
}

/** Stores the answer of our claim (a later claim of the same key is left alone). */
export async function completeKey(
  db: Db,
  where: { scope: string; key: string; claim: string },
  answer: { status: number; headers: Record<string, string>; body: Buffer },
): Promise<void> {
  await db('idempotency_keys')
    .where(where)
    .update({ state: 'complete', status_code: answer.status, response_headers: JSON.stringify(answer.headers), response_body: answer.body });
}

/** Frees the key of our claim (a 5xx, or a request that never answered), so a retry runs again. */
export async function releaseKey(db: Db, where: { scope: string; key: string; claim: string }): Promise<void> {
  await db('idempotency_keys').where(where).del();
}

/**
 * Deletes keys kept past 24 hours; answers how many. For a periodic job (the claim also takes
 * an expired key over, so pruning is housekeeping, never needed for correctness).
 */
export async function pruneIdempotencyKeys(db: Db): Promise<number> {
  return db('idempotency_keys').where('created_at', '<', db.raw(`now() - make_interval(hours => ${KEEP_HOURS})`)).del();
}

/**
 * Deletes every stored answer of one account's scope (an erasure, docs/decisions/0009-erasure-pseudonymises-money.md): a replayed
 * body may echo the name, bio or message it was sent, for up to 24 hours. Answers how many.
 */
export async function forgetAnswersOf(db: Db, userId: string): Promise<number> {
  return db('idempotency_keys').where({ scope: userId }).del();
}
