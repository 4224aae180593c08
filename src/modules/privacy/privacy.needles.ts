import type { Knex } from 'knex';
import type { AuthoredSource, PersonalDataPart } from '../define-module';
import type { Needle } from './privacy.replace';

type Parts = ReadonlyArray<{ module: string; part: PersonalDataPart }>;

/** Every source the parts declare. */
export function authoredSources(parts: Parts): AuthoredSource[] {
  return parts.flatMap(({ part }) => part.authored ?? []);
}

/** `table.column` of every declared source column: the parts' own originals, which the sweep leaves to them. */
export function sourceColumns(parts: Parts): Set<string> {
  return new Set(authoredSources(parts).flatMap((s) => [...(s.identifiers ?? []), ...(s.texts ?? [])].map((c) => `public.${s.table}.${c}`)));
}

function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  return [];
}

async function read(trx: Knex | Knex.Transaction, s: AuthoredSource, where: (q: Knex.QueryBuilder) => void): Promise<Needle[]> {
  const kinds: Array<[string, Needle['kind']]> = [...(s.identifiers ?? []).map((c) => [c, 'identifier'] as [string, Needle['kind']]), ...(s.texts ?? []).map((c) => [c, 'text'] as [string, Needle['kind']])];
  if (!kinds.length) return [];
  const q = trx(s.table).select(kinds.map(([c]) => c));
  where(q);
  const rows: Array<Record<string, unknown>> = await q;
  return rows.flatMap((r) => kinds.flatMap(([c, kind]) => strings(r[c]).map((value) => ({ value, kind }))));
}

/** What an account is known by and wrote, read from every part's sources (before the parts erase them). */
export async function accountNeedles(trx: Knex | Knex.Transaction, parts: Parts, userId: string): Promise<Needle[]> {
  const out: Needle[] = [];
  for (const s of authoredSources(parts)) out.push(...(await read(trx, s, (q) => void q.where(s.by, userId))));
  return out;
}

/** What a guest is known by and wrote under an address: the address itself, and their rows' strings. */
export async function guestNeedles(trx: Knex | Knex.Transaction, parts: Parts, email: string): Promise<Needle[]> {
  const out: Needle[] = [{ value: email, kind: 'identifier' }];
  for (const s of authoredSources(parts)) {
    if (!s.guestEmail) continue;
    const col = s.guestEmail;
    out.push(...(await read(trx, s, (q) => void q.whereNull(s.by).whereRaw('lower(??) = lower(?)', [col, email]))));
  }
  return out;
}
