import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { enqueue } from '../../infra/jobs';
import type { PersonalDataPart } from '../define-module';
import { authoredSources } from './privacy.needles';

/**
 * The erasure log (docs/decisions/0025-erasures-outlive-a-restore.md): one small object per
 * erasure carried out, kept in file storage, outside the database, and naming only ids. A
 * database restored to a point before an erasure brings the person back; the log is how the
 * erasure is carried out again. Written by a job queued in the erasure's own transaction, so a
 * log entry exists exactly for each erasure that committed (the job is retried until it lands).
 */
export const LOG_ERASURE_TASK = 'privacy.log-erasure';
const PREFIX = 'erasure-log/v1/';
const MAX_RECORD_BYTES = 4 * 1024 * 1024;

const uuid = z.string().uuid();
const record = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('account'), user_id: uuid, erased_at: z.string() }),
  // A guest is found again by the rows the erasure pseudonymised (table -> ids): no address is kept.
  z.object({ kind: z.literal('guest'), rows: z.record(z.string(), z.array(uuid)), erased_at: z.string() }),
]);
export type ErasureRecord = z.infer<typeof record>;

type Parts = ReadonlyArray<{ module: string; part: PersonalDataPart }>;

/** Queues the log entry of an erasure inside its transaction. */
export async function logErasure(trx: Knex.Transaction, rec: ErasureRecord): Promise<void> {
  const key = `${PREFIX}${rec.erased_at.replace(/[^0-9]/g, '').slice(0, 17)}-${randomUUID()}.json`;
  await enqueue(trx, LOG_ERASURE_TASK, { key, record: rec }, { maxAttempts: 50 });
}

export async function writeErasureRecord(ctx: AppContext, key: string, rec: unknown): Promise<void> {
  const parsed = record.parse(rec);
  await ctx.storage.put(key, Buffer.from(JSON.stringify(parsed)), { contentType: 'application/json' });
}

/** A log entry and its id (the uuid in its key). */
export type LoggedErasure = ErasureRecord & { id: string };

/** Every entry of the log, oldest first; an unreadable entry is reported, not skipped silently. */
export async function readErasureLog(ctx: AppContext): Promise<{ records: LoggedErasure[]; unreadable: string[] }> {
  const keys = (await ctx.storage.list(PREFIX)).sort();
  const records: LoggedErasure[] = [];
  const unreadable: string[] = [];
  for (const key of keys) {
    const bytes = await ctx.storage.read(key, MAX_RECORD_BYTES);
    let parsed: ErasureRecord | null = null;
    try {
      parsed = bytes ? record.parse(JSON.parse(bytes.toString('utf8'))) : null;
    } catch {
      parsed = null;
    }
    if (parsed) records.push({ ...parsed, id: key.slice(-41, -5) });
    else unreadable.push(key);
  }
  return { records, unreadable };
}

/** The guest's rows under an address, per declared source table (before they are pseudonymised). */
export async function guestRows(trx: Knex.Transaction, parts: Parts, email: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const s of authoredSources(parts)) {
    if (!s.guestEmail) continue;
    const rows: Array<{ id: string }> = await trx(s.table).whereNull(s.by).whereRaw('lower(??) = lower(?)', [s.guestEmail, email]).select('id');
    if (rows.length) out[s.table] = [...(out[s.table] ?? []), ...rows.map((r) => r.id)];
  }
  return out;
}

/** The addresses the logged rows hold now (none once they are pseudonymised again). */
export async function guestAddressesOf(db: Knex, parts: Parts, rows: Record<string, string[]>): Promise<string[]> {
  const found = new Set<string>();
  for (const s of authoredSources(parts)) {
    const ids = rows[s.table];
    if (!s.guestEmail || !ids?.length) continue;
    const hits: Array<{ email: string }> = await db(s.table).whereIn('id', ids).whereNull(s.by).whereRaw('?? like ?', [s.guestEmail, '%@%']).select(db.raw('lower(??) as email', [s.guestEmail]));
    for (const h of hits) found.add(h.email);
  }
  return [...found];
}
