import type { Knex } from 'knex';
import { READ_CACHE_CHANNEL } from '../../infra/invalidation';
import { Replacer, type Needle, type Placeholders } from './privacy.replace';

/**
 * One sweep for every copy of an erased person's words and identifiers held for someone else:
 * notifications, mails, outbound webhook payloads and deliveries, stored Idempotency-Key answers,
 * audit details, the event log, job payloads, and whatever table stores a copy tomorrow. The
 * tables and their text, JSON, text-array and bytea columns are read from information_schema at
 * each erasure, never listed; Postgres finds the rows (strpos on each value's text form) and only
 * those come to this process, in batches, to be replaced (JSON stays JSON: only string values
 * change) and written back in the erasure's transaction.
 */

/** Tables the sweep leaves alone, each for its reason. */
export const NOT_SWEPT: Record<string, string> = {
  'public.ledger_entries': 'the append-only money journal (a trigger refuses changes); it holds ids, amounts and kinds, never personal text',
  'public.sandbox_objects': "the offline sandbox processor's own store: it stands in for the processor's records, which an erasure cannot reach",
};

const BATCH = 200;

interface Column {
  name: string;
  /** format_type, for the cast on write. */
  type: string;
  shape: 'text' | 'json' | 'array' | 'bytea';
}

interface Table {
  name: string;
  columns: Column[];
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Every ordinary table of the app's schemas with the columns a copy can sit in, less `skip` (`schema.table.column`). */
async function sweptTables(trx: Knex.Transaction, skip: Set<string>): Promise<Table[]> {
  const { rows } = await trx.raw(`
    select c.table_schema as schema, c.table_name as "table", c.column_name as "column", c.data_type, c.udt_name,
           format_type(a.atttypid, a.atttypmod) as type
      from information_schema.columns c
      join pg_namespace n on n.nspname = c.table_schema
      join pg_class r on r.relnamespace = n.oid and r.relname = c.table_name and r.relkind = 'r'
      join pg_attribute a on a.attrelid = r.oid and a.attname = c.column_name
     where c.table_schema not in ('pg_catalog', 'information_schema') and c.table_schema not like 'pg\\_%'
       and c.is_generated = 'NEVER'
       and (c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea')
            or (c.data_type = 'ARRAY' and c.udt_name in ('_text', '_varchar')))
     order by 1, 2, c.ordinal_position`);
  const tables = new Map<string, Table>();
  for (const r of rows as Array<{ schema: string; table: string; column: string; data_type: string; type: string }>) {
    const key = `${r.schema}.${r.table}`;
    if (NOT_SWEPT[key] || skip.has(`${key}.${r.column}`)) continue;
    const shape = r.data_type === 'json' || r.data_type === 'jsonb' ? 'json' : r.data_type === 'ARRAY' ? 'array' : r.data_type === 'bytea' ? 'bytea' : 'text';
    const t = tables.get(key) ?? { name: `${ident(r.schema)}.${ident(r.table)}`, columns: [] };
    t.columns.push({ name: r.column, type: r.type, shape });
    tables.set(key, t);
  }
  return [...tables.values()];
}

/** Whether a column's value holds one search string: its text form (JSON-escaped for JSON and arrays), a bytea's UTF-8 bytes. */
function holds(c: Column): string {
  return c.shape === 'bytea' ? `position(convert_to(?, 'UTF8') in ${ident(c.name)}) > 0` : `strpos(${ident(c.name)}::text, ?) > 0`;
}

function replaced(r: Replacer, c: Column, v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  let out: unknown;
  let same: boolean;
  if (c.shape === 'bytea') {
    out = r.bytes(v as Buffer);
    same = (out as Buffer).equals(v as Buffer);
  } else if (c.shape === 'text') {
    out = r.text(String(v));
    same = out === v;
  } else {
    out = r.json(v);
    same = JSON.stringify(out) === JSON.stringify(v);
  }
  if (same) return undefined;
  return c.shape === 'json' ? JSON.stringify(out) : out;
}

/** Rewrites one batch of rows (by ctid, locked by the scan), each changed column cast back to its type. */
async function rewrite(trx: Knex.Transaction, t: Table, r: Replacer, ctids: string[]): Promise<number> {
  const cols = t.columns.map((c) => ident(c.name)).join(', ');
  const { rows } = await trx.raw(`select ctid::text as ctid, ${cols} from ${t.name} where ctid = any(?::tid[])`, [ctids]);
  const changes: Array<{ ctid: string; values: Array<unknown> }> = [];
  for (const row of rows as Array<Record<string, unknown>>) {
    const values = t.columns.map((c) => replaced(r, c, row[c.name]));
    if (values.some((v) => v !== undefined)) changes.push({ ctid: String(row.ctid), values });
  }
  if (!changes.length) return 0;
  const tuple = `(?::tid, ${t.columns.map((c) => `?::${c.type}`).join(', ')})`;
  const names = t.columns.map((c, i) => `c${i}`);
  const sets = t.columns.map((c, i) => `${ident(c.name)} = coalesce(v.c${i}, x.${ident(c.name)})`).join(', ');
  await trx.raw(
    `update ${t.name} as x set ${sets} from (values ${changes.map(() => tuple).join(', ')}) as v(ctid, ${names.join(', ')}) where x.ctid = v.ctid`,
    changes.flatMap((ch) => [ch.ctid, ...ch.values.map((v) => (v === undefined ? null : v))]) as Knex.RawBinding[],
  );
  return changes.length;
}

/**
 * Replaces every copy of `needles` in the app's tables, except the columns in `skip` (the parts'
 * own originals, `schema.table.column`), inside the erasure's transaction; answers how many rows
 * changed. The public read cache is dropped everywhere on commit: cached answers may quote them.
 */
export async function scrubCopies(trx: Knex.Transaction, needles: Needle[], placeholders: Placeholders, skip: Set<string>): Promise<number> {
  await trx.raw('select pg_notify(?, ?)', [READ_CACHE_CHANNEL, '*']);
  if (!needles.length) return 0;
  const r = new Replacer(needles, placeholders);
  const search = r.searchStrings();
  let changed = 0;
  for (const t of await sweptTables(trx, skip)) {
    const where = t.columns.flatMap((c) => search.map(() => holds(c))).join(' or ');
    // The rows holding a copy, locked so their ctids hold until commit; only their ids come back.
    const { rows } = await trx.raw(`select ctid::text as ctid from ${t.name} where ${where} for update`, t.columns.flatMap(() => search));
    const ctids = (rows as Array<{ ctid: string }>).map((x) => x.ctid);
    for (let i = 0; i < ctids.length; i += BATCH) changed += await rewrite(trx, t, r, ctids.slice(i, i + BATCH));
  }
  return changed;
}
