import { z, type ZodType } from 'zod';

/**
 * Secret fields of an answer (decisions: a stored idempotent answer never holds a secret). A
 * route names them in `secretFields` as dotted paths into its JSON answer (`api_key`,
 * `data.secret`); the stored copy has each set to null with `secret_redacted: true` beside it,
 * so a replay tells a client that lost the first answer what was made (id, prefix) without
 * keeping the secret at rest.
 */
export const SECRET_REDACTED = 'secret_redacted';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A copy of `body` with every named path that holds a value set to null and flagged; answers whether any was. */
export function redactSecrets(body: unknown, paths: readonly string[]): { body: unknown; redacted: boolean } {
  const copy: unknown = structuredClone(body);
  let redacted = false;
  for (const path of paths) {
    const keys = path.split('.');
    const last = keys.pop()!;
    let at: unknown = copy;
    for (const k of keys) at = isObject(at) ? at[k] : undefined;
    if (!isObject(at) || !(last in at) || at[last] === null) continue;
    at[last] = null;
    at[SECRET_REDACTED] = true;
    redacted = true;
  }
  return { body: copy, redacted };
}

/**
 * The stored form of an answer's bytes: JSON with its secrets redacted, or null when the body
 * cannot be read as JSON (then nothing may be stored: the secret could be in it).
 */
export function redactAnswer(body: Buffer, paths: readonly string[]): { body: Buffer; redacted: boolean } | null {
  if (!body.length) return { body, redacted: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const out = redactSecrets(parsed, paths);
  return out.redacted ? { body: Buffer.from(JSON.stringify(out.body), 'utf8'), redacted: true } : { body, redacted: false };
}

/** The OpenAPI note of a route with secret fields. */
export const secretFieldsNote = (paths: readonly string[]): string =>
  `Secret: ${paths.map((p) => `\`${p}\``).join(', ')} is shown only in this first answer. An Idempotency-Key replay answers ${paths.length > 1 ? 'them' : 'it'} as null with \`${SECRET_REDACTED}: true\` beside ${paths.length > 1 ? 'each' : 'it'} (the stored answer never keeps a secret).`;

/**
 * The documented answer of a route with secret fields: each secret is its value in the first
 * answer, or null with `secret_redacted: true` beside it in an Idempotency-Key replay. Paths that
 * do not lead through plain objects leave the schema as it is.
 */
export function withRedactedReplay(schema: ZodType, paths: readonly string[]): ZodType {
  let out: ZodType = schema;
  for (const path of paths) out = redactedAt(out, path.split('.')) ?? out;
  return out;
}

function redactedAt(schema: ZodType, keys: string[]): ZodType | null {
  if (!(schema instanceof z.ZodObject)) return null;
  const [head, ...rest] = keys as [string, ...string[]];
  const inner = schema.shape[head] as ZodType | undefined;
  if (!inner) return null;
  if (!rest.length) {
    return schema.extend({
      [head]: inner.nullable().describe('Null in an Idempotency-Key replay (the stored answer never keeps a secret)'),
      [SECRET_REDACTED]: z.literal(true).optional().describe('Present, true, when the secret beside it was left out of a replay'),
    });
  }
  const next = redactedAt(inner, rest);
  return next && schema.extend({ [head]: next });
}
