import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../src/db/knex';

/**
 * Completeness of an erasure, derived from the database itself: which tables and columns exist
 * (information_schema, every schema the app created), which rows are a person's (foreign keys to
 * users, address columns), and which strings in them the person wrote or is named by (those
 * carrying the test's random tag, so a hit is never a coincidence). Nothing here lists tables.
 */

/** The sandbox processor's own store stands in for the processor's records, which no erasure reaches. */
const OUTSIDE = new Set(['public.sandbox_objects']);

interface Col {
  schema: string;
  table: string;
  column: string;
}

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Every column of every ordinary table in the schemas the app uses (not Postgres's own). */
async function appColumns(db: Db): Promise<Col[]> {
  const { rows } = await db.raw(`
    select c.table_schema as schema, c.table_name as "table", c.column_name as column
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where t.table_type = 'BASE TABLE' and c.table_schema not in ('pg_catalog', 'information_schema') and c.table_schema not like 'pg\\_%'
     order by 1, 2, c.ordinal_position`);
  return (rows as Col[]).filter((c) => !OUTSIDE.has(`${c.schema}.${c.table}`));
}

function byTable(cols: Col[]): Map<string, Col[]> {
  const out = new Map<string, Col[]>();
  for (const c of cols) out.set(`${q(c.schema)}.${q(c.table)}`, [...(out.get(`${q(c.schema)}.${q(c.table)}`) ?? []), c]);
  return out;
}

function leaves(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) leaves(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) leaves(x, out);
}

/**
 * Every string of a person's rows that carries `tag`: rows of the users row itself, rows whose
 * foreign key to users names the account, and rows whose address column holds `email`. JSON and
 * text inside them are walked to their string values.
 */
export async function personStrings(db: Db, tag: string, who: { userId?: string; email: string }): Promise<string[]> {
  const fks = who.userId
    ? (
        await db.raw(`
          select n.nspname as schema, r.relname as "table", a.attname as column
            from pg_constraint c join pg_class r on r.oid = c.conrelid join pg_namespace n on n.oid = r.relnamespace
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any(c.conkey)
           where c.contype = 'f' and c.confrelid = 'public.users'::regclass`)
      ).rows
    : [];
  const cols = await appColumns(db);
  const found: string[] = [];
  const read = async (c: Col, where: string, value: string) => {
    const { rows } = await db.raw(`select to_jsonb(x) as r from ${q(c.schema)}.${q(c.table)} x where ${where}`, [value]);
    for (const r of rows) leaves(r.r, found);
  };
  if (who.userId) await read({ schema: 'public', table: 'users', column: 'id' }, 'id = ?::uuid', who.userId);
  for (const c of fks as Col[]) await read(c, `${q(c.column)} = ?::uuid`, who.userId!);
  for (const c of cols.filter((x) => /email/i.test(x.column))) await read(c, `lower(${q(c.column)}::text) = lower(?)`, who.email);
  return [...new Set(found.filter((s) => s.includes(tag)))].sort();
}

/**
 * What to look for: each string whole, and each tagged word of it on its own (a mail quotes a
 * long comment cut to its first characters; its tagged word still gives it away).
 */
export function needlesOf(strings: string[], tag: string): string[] {
  const words = strings.flatMap((s) => s.split(/[^A-Za-z0-9@._+-]+/).filter((w) => w.includes(tag)));
  return [...new Set([...strings, ...words])];
}

const likeEscape = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * `table.column` of every value anywhere in the app's schemas holding one of `needles`
 * (case-insensitive; JSON-escaped too, and bytea read as its bytes).
 */
export async function findStrings(db: Db, needles: string[]): Promise<string[]> {
  const patterns = [...new Set(needles.flatMap((n) => [n, JSON.stringify(n).slice(1, -1)]))].map(likeEscape);
  const hits: string[] = [];
  for (const [table, cols] of byTable(await appColumns(db))) {
    const { rows: types } = await db.raw(`select attname, format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = ?::regclass and attnum > 0`, [table]);
    const typeOf = new Map((types as Array<{ attname: string; type: string }>).map((r) => [r.attname, r.type]));
    const exprs = cols.map((c) => (typeOf.get(c.column) === 'bytea' ? `encode(${q(c.column)}, 'escape')` : `${q(c.column)}::text`));
    const select = cols.map((c, i) => `count(*) filter (where ${exprs[i]} ilike any(?::text[]))::int as ${q(c.column)}`).join(', ');
    const { rows } = await db.raw(`select ${select} from ${table}`, cols.map(() => patterns));
    for (const c of cols) if (rows[0][c.column] > 0) hits.push(`${c.schema}.${c.table}.${c.column}`);
  }
  return hits;
}

/** Stored files (path or content) holding one of `needles`. */
export function filesHolding(dir: string, needles: string[]): string[] {
  const walk = (d: string): string[] =>
    fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)])) : [];
  const lower = needles.map((n) => n.toLowerCase());
  return walk(dir).filter((f) => {
    const text = `${f}\n${fs.readFileSync(f).toString('latin1')}`.toLowerCase();
    return lower.some((n) => text.includes(n) || text.includes(Buffer.from(n, 'utf8').toString('latin1')));
  });
}
