import type { Knex } from 'knex';

/**
 * A stored Idempotency-Key answer never holds a secret (docs/decisions/0010-idempotency-keys.md): answers stored before the
 * routes declared `secretFields` still hold API keys, webhook signing secrets and Connect links
 * for up to 24 hours. They are redacted in place, as the middleware now stores them (the secret
 * null, `secret_redacted: true` beside it), so a retry still replays "made" rather than making a
 * second key. A body that is not JSON is deleted instead. The routes and fields are written out
 * here, as they were when this ran (a migration must not follow later route tables).
 */
const SECRET_ROUTES: Array<{ path: RegExp; fields: string[] }> = [
  { path: /^\/api\/v1\/api-keys\/?$/i, fields: ['api_key'] },
  { path: /^\/api\/v1\/webhook-endpoints\/?$/i, fields: ['data.secret'] },
  { path: /^\/api\/v1\/webhook-endpoints\/[^/]+\/rotate-secret\/?$/i, fields: ['data.secret'] },
  { path: /^\/api\/v1\/processor\/connect\/(onboarding|dashboard-link)\/?$/i, fields: ['data.url'] },
];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The redacted body, the same body when it holds none of the fields, or null when it is not JSON. */
function redact(body: Buffer, fields: string[]): Buffer | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  let changed = false;
  for (const path of fields) {
    const keys = path.split('.');
    const last = keys.pop()!;
    let at: unknown = parsed;
    for (const k of keys) at = isObject(at) ? at[k] : undefined;
    if (!isObject(at) || !(last in at) || at[last] === null) continue;
    at[last] = null;
    at.secret_redacted = true;
    changed = true;
  }
  return changed ? Buffer.from(JSON.stringify(parsed), 'utf8') : body;
}

export async function up(knex: Knex): Promise<void> {
  const rows: Array<{ scope: string; key: string; path: string; response_body: Buffer | null }> = await knex('idempotency_keys')
    .where({ method: 'POST', state: 'complete' })
    .whereNotNull('response_body')
    .select('scope', 'key', 'path', 'response_body');
  for (const row of rows) {
    const route = SECRET_ROUTES.find((r) => r.path.test(row.path));
    if (!route || !row.response_body?.length) continue;
    const body = redact(row.response_body, route.fields);
    const where = { scope: row.scope, key: row.key };
    if (!body) await knex('idempotency_keys').where(where).del();
    else if (body !== row.response_body) {
      // The ETag named the body as first sent.
      await knex('idempotency_keys').where(where).update({ response_body: body, response_headers: knex.raw(`response_headers - 'etag'`) });
    }
  }
}

/** Redacted secrets cannot come back. */
export async function down(): Promise<void> {}
