import type { Knex } from 'knex';

type Q = Knex | Knex.Transaction;

export interface ExportRow {
  id: string;
  user_id: string | null;
  request_id: string | null;
  status: 'pending' | 'ready' | 'failed' | 'expired';
  storage_key: string | null;
  expires_at: Date | null;
  created_at: Date;
}

export interface ErasureRow {
  id: string;
  user_id: string;
  status: 'scheduled' | 'cancelled' | 'done';
  scheduled_for: Date;
  created_at: Date;
}

export interface RequestRow {
  id: string;
  kind: 'export' | 'erasure';
  email: string | null;
  status: string;
  expires_at: Date;
  used_at: Date | null;
}

// --- exports ---

/** Locks the account's export rows so two simultaneous requests cannot both pass the limits. */
export async function exportCounts(trx: Knex.Transaction, userId: string): Promise<{ running: number; today: number }> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`privacy-export:${userId}`]);
  const r = await trx('privacy_exports')
    .where({ user_id: userId })
    .first(
      trx.raw(`count(*) filter (where status = 'pending')::int as running`),
      trx.raw(`count(*) filter (where created_at > now() - interval '1 day')::int as today`),
    );
  return { running: r?.running ?? 0, today: r?.today ?? 0 };
}

export async function insertExport(db: Q, row: { user_id: string | null; request_id?: string | null }): Promise<ExportRow> {
  const [r] = await db('privacy_exports').insert(row).returning('*');
  return r;
}

export const findExport = (db: Q, id: string): Promise<ExportRow | undefined> => db('privacy_exports').where({ id }).first();

export async function markExportReady(db: Q, id: string, storageKey: string, expiresAt: Date): Promise<void> {
  await db('privacy_exports').where({ id }).update({ status: 'ready', storage_key: storageKey, ready_at: db.fn.now(), expires_at: expiresAt });
}

export async function markExportFailed(db: Q, id: string): Promise<void> {
  await db('privacy_exports').where({ id, status: 'pending' }).update({ status: 'failed' });
}

/** Exports of an account that is being erased: their files go with it. */
export async function exportKeysOf(db: Q, userId: string): Promise<string[]> {
  const rows = await db('privacy_exports').where({ user_id: userId }).whereNotNull('storage_key').select('storage_key');
  await db('privacy_exports').where({ user_id: userId }).update({ status: 'expired', storage_key: null });
  return rows.map((r: { storage_key: string }) => r.storage_key);
}

/** Ready exports with a file, but `exceptUserId`'s own: the files an erasure looks through for copies of the person. */
export async function readyExportFiles(db: Q, exceptUserId: string | null): Promise<Array<{ id: string; storage_key: string }>> {
  const q = db('privacy_exports').where({ status: 'ready' }).whereNotNull('storage_key').select('id', 'storage_key');
  if (exceptUserId) q.where((w) => void w.whereNull('user_id').orWhereNot('user_id', exceptUserId));
  return q;
}

/**
 * Ready exports whose 7-day link has run out become 'expired' and lose their file key; answers
 * the keys, for the caller to remove the files after commit (maintenance.prune).
 */
export async function expireDueExports(trx: Knex.Transaction): Promise<string[]> {
  const { rows } = await trx.raw(
    `with due as (select id, storage_key from privacy_exports
                   where status = 'ready' and expires_at <= now() for update skip locked)
     update privacy_exports p set status = 'expired', storage_key = null
       from due where p.id = due.id
     returning due.storage_key`,
  );
  return (rows as Array<{ storage_key: string | null }>).map((r) => r.storage_key).filter((k): k is string => !!k);
}

// --- erasures ---

export const scheduledErasure = (db: Q, userId: string): Promise<ErasureRow | undefined> =>
  db('privacy_erasures').where({ user_id: userId, status: 'scheduled' }).first();

export async function insertErasure(db: Q, userId: string, scheduledFor: Date): Promise<ErasureRow> {
  const [r] = await db('privacy_erasures').insert({ user_id: userId, scheduled_for: scheduledFor }).returning('*');
  return r;
}

export async function cancelErasure(db: Q, userId: string): Promise<boolean> {
  const n = await db('privacy_erasures').where({ user_id: userId, status: 'scheduled' }).update({ status: 'cancelled', cancelled_at: db.fn.now() });
  return n > 0;
}

/** The scheduled erasure, row-locked, when it is due (or at once with `now`). */
export async function claimErasure(trx: Knex.Transaction, userId: string, now: boolean): Promise<ErasureRow | undefined> {
  const q = trx('privacy_erasures').where({ user_id: userId, status: 'scheduled' }).forUpdate();
  if (!now) q.where('scheduled_for', '<=', trx.fn.now());
  return q.first();
}

export async function erasureDone(db: Q, userId: string): Promise<boolean> {
  return !!(await db('privacy_erasures').where({ user_id: userId, status: 'done' }).first('id'));
}

export async function markErasureDone(trx: Knex.Transaction, id: string): Promise<void> {
  await trx('privacy_erasures').where({ id }).update({ status: 'done', done_at: trx.fn.now() });
}

export async function listScheduled(db: Q): Promise<Array<{ user_id: string; scheduled_for: Date; created_at: Date }>> {
  return db('privacy_erasures').where({ status: 'scheduled' }).orderBy('scheduled_for').select('user_id', 'scheduled_for', 'created_at');
}

export async function dueErasures(db: Q): Promise<string[]> {
  const rows = await db('privacy_erasures').where({ status: 'scheduled' }).where('scheduled_for', '<=', db.fn.now()).select('user_id');
  return rows.map((r: { user_id: string }) => r.user_id);
}

// --- guest requests ---

export async function insertRequest(db: Q, row: { token_hash: string; kind: string; email: string; expires_at: Date }): Promise<void> {
  await db('privacy_requests').insert(row);
}

/** The unused, unexpired request behind a token, read without claiming it. */
export async function openRequest(db: Q, tokenHash: string): Promise<RequestRow | undefined> {
  return db('privacy_requests').where({ token_hash: tokenHash }).whereNull('used_at').where('expires_at', '>', db.fn.now()).first();
}

/** The unused, unexpired request behind a token, row-locked; null otherwise. */
export async function claimRequest(trx: Knex.Transaction, tokenHash: string): Promise<RequestRow | undefined> {
  return trx('privacy_requests').where({ token_hash: tokenHash }).whereNull('used_at').where('expires_at', '>', trx.fn.now()).forUpdate().first();
}

export async function finishRequest(db: Q, id: string, status: string, keepEmail: boolean): Promise<void> {
  await db('privacy_requests')
    .where({ id })
    .update({ used_at: db.fn.now(), status, ...(keepEmail ? {} : { email: null }) });
}

export const findRequest = (db: Q, id: string): Promise<RequestRow | undefined> => db('privacy_requests').where({ id }).first();

export async function forgetRequestEmail(db: Q, id: string): Promise<void> {
  await db('privacy_requests').where({ id }).update({ email: null });
}

/** Guest requests past their link's life: the address they hold goes with them (maintenance.prune). */
export async function pruneExpiredRequests(db: Q, graceDays: number): Promise<number> {
  return db('privacy_requests').where('expires_at', '<', db.raw(`now() - make_interval(days => ?)`, [graceDays])).delete();
}
