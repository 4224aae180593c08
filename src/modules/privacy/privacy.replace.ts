import { escapeHtml } from '../../integrations/mail/templates';

/** One string an erased person is known by or wrote, as read from the data before the erasure. */
export interface Needle {
  value: string;
  kind: 'identifier' | 'text';
}

/** What replaces each kind where a copy stays (a mail, a notification, an event). */
export interface Placeholders {
  identifier: string;
  text: string;
}

/**
 * Shorter strings are left alone: a three-letter name or a seven-letter "Thanks!" identifies no
 * one, and would match other people's words.
 */
const MIN_LENGTH = { identifier: 3, text: 8 } as const;
/**
 * A copy may quote a text cut short (a notice quotes the first 139 characters of a comment): a
 * quote of at least this many leading characters counts as the text, as far as it goes.
 */
export const QUOTE_PREFIX = 24;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Letters and digits on either side mean the name is part of a longer word: not the person.
const WORD = '[\\p{L}\\p{N}_]';

/** The forms a string takes in stored copies: as written, HTML-escaped (mail and notice bodies), URL-encoded (links). */
function forms(value: string, kind: Needle['kind']): string[] {
  const out = [value, escapeHtml(value)];
  if (kind === 'identifier') out.push(encodeURIComponent(value));
  return [...new Set(out)];
}

/** The needles worth looking for: long enough, trimmed as copies show them, never `keep` (the account's own id). */
export function usable(needles: Needle[], keep: readonly string[] = []): Needle[] {
  const seen = new Map<string, Needle>();
  for (const n of needles) {
    for (const v of new Set([n.value, n.value.trim()])) {
      if (v.length < MIN_LENGTH[n.kind] || keep.includes(v)) continue;
      // A string that is both (a name typed as a note) is scrubbed as an identifier.
      if (!seen.has(v) || n.kind === 'identifier') seen.set(v, { value: v, kind: n.kind });
    }
  }
  return [...seen.values()];
}

/** Replaces each match of `quote` in `s`, a match running on as long as `s` keeps following `full`. */
function replaceQuotes(s: string, full: string, placeholder: string): string {
  const quote = full.slice(0, QUOTE_PREFIX);
  let out = '';
  let from = 0;
  for (let i = s.indexOf(quote); i >= 0; i = s.indexOf(quote, from)) {
    let j = quote.length;
    while (j < full.length && s[i + j] === full[j]) j += 1;
    out += s.slice(from, i) + placeholder;
    from = i + j;
  }
  return out + s.slice(from);
}

/**
 * Replaces every copy of the needles in strings, JSON values (string values only: keys, numbers
 * and structure stay, so JSON stays valid) and arrays. Texts go first: a note may hold the name.
 */
export class Replacer {
  private readonly texts: string[];
  private readonly idRegexes: RegExp[];

  constructor(
    readonly needles: Needle[],
    private readonly placeholders: Placeholders,
  ) {
    this.texts = needles
      .filter((n) => n.kind === 'text')
      .flatMap((n) => forms(n.value, 'text'))
      .sort((a, b) => b.length - a.length);
    const ids = needles.filter((n) => n.kind === 'identifier');
    const alternation = (list: Needle[]) =>
      list
        .flatMap((n) => forms(n.value, 'identifier'))
        .sort((a, b) => b.length - a.length)
        .map(escapeRegex)
        .join('|');
    // Addresses match whatever their case; names and slugs as written.
    const emails = ids.filter((n) => n.value.includes('@'));
    const others = ids.filter((n) => !n.value.includes('@'));
    this.idRegexes = [
      ...(emails.length ? [new RegExp(`(?<!${WORD})(?:${alternation(emails)})(?!${WORD})`, 'giu')] : []),
      ...(others.length ? [new RegExp(`(?<!${WORD})(?:${alternation(others)})(?!${WORD})`, 'gu')] : []),
    ];
  }

  /**
   * Substrings one of which every value holding a copy contains, as stored and JSON-escaped (the
   * search is case-sensitive, several times quicker than a case-insensitive one over a whole
   * database: an address is looked for as given and in lower case, as the platform stores it).
   */
  searchStrings(): string[] {
    const raw = [
      ...this.texts.map((t) => t.slice(0, QUOTE_PREFIX)),
      ...this.needles.filter((n) => n.kind === 'identifier').flatMap((n) => forms(n.value, 'identifier')),
      ...this.needles.filter((n) => n.kind === 'identifier' && n.value.includes('@')).flatMap((n) => forms(n.value.toLowerCase(), 'identifier')),
    ];
    return [...new Set(raw.flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]))];
  }

  string(s: string): string {
    let out = s;
    for (const t of this.texts) if (out.includes(t.slice(0, QUOTE_PREFIX))) out = replaceQuotes(out, t, this.placeholders.text);
    for (const r of this.idRegexes) out = out.replace(r, this.placeholders.identifier);
    return out;
  }

  /** A JSON value (or array) with every string value replaced; keys and other values as they were. */
  json(v: unknown): unknown {
    if (typeof v === 'string') return this.string(v);
    if (Array.isArray(v)) return v.map((x) => this.json(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.json(x)]));
    return v;
  }

  /** Text that may itself be JSON (a webhook payload kept as text): replaced inside its string values, and stays JSON. */
  text(s: string): string {
    const t = s.trimStart();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(s);
        const before = JSON.stringify(parsed);
        const after = JSON.stringify(this.json(parsed));
        // Unchanged, the text stays byte for byte as it was (no reformatting).
        return after === before ? s : after;
      } catch {
        // Not JSON after all: plain text.
      }
    }
    return this.string(s);
  }

  /** Bytes that are UTF-8 text (a stored answer) are replaced as text; anything else (an image) is left as it is. */
  bytes(b: Buffer): Buffer {
    const s = b.toString('utf8');
    if (!Buffer.from(s, 'utf8').equals(b)) return b;
    return Buffer.from(this.text(s), 'utf8');
  }
}
