import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z, type ZodType } from 'zod';
import type { LimiterUse, RouteDef, RouteModule } from '../define-routes';
import { idempotencyApplies } from '../idempotency';
import type { OperationExample } from './openapi-examples';
import { withRedactedReplay } from '../secret-fields';

const errorSchema = z
  .object({
    error: z.string(),
    message: z.string(),
    code: z.string().optional(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    required_permission: z.string().optional(),
    feature_key: z.string().optional(),
    action: z.string().optional(),
    request_id: z.string().optional(),
  })
  .passthrough()
  // Named components, so clients (and readers) find the error shapes by name.
  .meta({
    id: 'Error',
    description: 'Every error body: never wrapped; `details` (one `{ path, message }` per validation failure) on 400s, `feature_key` when a flag is off, `required_permission` on missing permissions, plus fields some operations name; `request_id` equals the answer\'s `X-Request-Id` (quote it in a bug report).',
  });

const rateLimitSchema = z
  .object({ error: z.string(), retryAfter: z.number().int(), request_id: z.string().optional() })
  .meta({
    id: 'RateLimitError',
    description: 'A 429 from a rate limiter: the message names the limiter; retryAfter is its window in seconds. Headers: RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After.',
  });

const captchaRequiredSchema = z
  .object({ error: z.string(), message: z.string().optional(), requiresCaptcha: z.literal(true), reason: z.string(), request_id: z.string().optional() })
  .meta({ id: 'CaptchaRequired', description: 'A 429 of sign-up or sign-in at elevated risk without `captchaToken`: send the request again with one.' });

const limitReachedSchema = z
  .object({ error: z.string(), message: z.string(), code: z.string(), request_id: z.string().optional() })
  .meta({
    id: 'LimitReached',
    description: 'A 429 of a quota that no window frees (a tip receipt mailed its most times, an export already running): `code` names it; no `retryAfter`.',
  });

/** Every 429: a rate limiter's (always `retryAfter`), a CAPTCHA demand, or a quota used up. */
const tooManySchema = z.union([rateLimitSchema, captchaRequiredSchema, limitReachedSchema]).meta({ id: 'TooManyRequests' });

const STATUS_TEXT: Record<number, string> = {
  400: 'Validation failure or bad input',
  401: 'Missing or invalid credential',
  403: 'Not allowed (permission, flag, verified email, ...)',
  404: 'Not found or not readable by the caller',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Body of a media type the operation does not take',
  422: 'Idempotency-Key reused for a different request (IDEMPOTENCY_KEY_REUSED)',
  429: 'Rate limited',
  500: 'Server error',
  503: 'Dependency unavailable',
};

/**
 * An operation without inputs still has its body read: the JSON and form parsers run on every
 * request that carries one (src/app.ts), before any route, so a broken one is refused here too.
 */
const UNREADABLE_BODY =
  'Bad input: this operation takes no parameters or body, but a body sent with it is still read, and one sent as `application/json` that is not valid JSON (or unreadable form data) is refused (`Invalid JSON`)';

/**
 * What every operation can also answer, whatever its own errors: the shared pipeline's refusals
 * that no route lists (docs/decisions/0011-outages-answer-503.md for the 503).
 */
const OTHER_ERRORS =
  'Any other error, in the Error shape: 413 `Payload too large` for a request body over the size limit (on every operation, since every body is read), and 503 `DATABASE_UNAVAILABLE` with `Retry-After` when the database is unreachable or too slow for an operation that uses it.';

/** The global limiter (100 a minute per IP) counts every request under /api/v1 its route does not exempt. */
export function underGlobalLimiter(mod: RouteModule, r: RouteDef): boolean {
  return !mod.root && !r.skipGlobalLimiter;
}

/** The limiters the operation's 429 can come from, as the description names them. */
export function limiterNamesOf(mod: RouteModule, r: RouteDef): string[] {
  const useName = (u: LimiterUse) => (typeof u === 'string' ? u : u.name);
  const named = (r.limiters ?? []).map((l) => (typeof l === 'string' || 'spec' in l ? useName(l) : useName(l.name)));
  return underGlobalLimiter(mod, r) ? ['global', ...named] : named;
}

const mediaTypesOf = (r: RouteDef): string[] => (r.produces === undefined ? [] : [r.produces].flat());
const isJsonType = (t: string) => t === 'application/json' || t.endsWith('+json');

/** The success answer: its schema and example, or for a redirect the `Location` it sends. */
function successResponse(r: RouteDef, withSchema: boolean, example: OperationExample | undefined, ok = r.status ?? 200): RouteConfig['responses'][string] {
  const produces = mediaTypesOf(r);
  if (ok >= 300 && ok < 400) {
    return {
      description: 'Redirect: the browser goes on to `Location`',
      headers: { Location: { description: 'Where the browser goes next', required: true, schema: { type: 'string' } } },
      ...(produces.length ? { content: Object.fromEntries(produces.map((t) => [t, { schema: { type: 'string' } }])) } : {}),
    };
  }
  const okExample = example && example.status === ok && example.response !== undefined ? { example: example.response } : {};
  if (produces.length) {
    // A JSON-like media type shows its schema (any JSON object when the route names none), others bytes.
    const schemaFor = (t: string) =>
      r.response && withSchema ? (r.response as ZodType) : isJsonType(t) ? { type: 'object' as const, description: 'A JSON document' } : { type: 'string' as const, format: 'binary' };
    return { description: 'Success', content: Object.fromEntries(produces.map((t) => [t, { schema: schemaFor(t) }])) };
  }
  const schema = r.secretFields?.length ? withRedactedReplay(r.response as ZodType, r.secretFields) : (r.response as ZodType);
  return r.response && withSchema
    ? { description: 'Success', content: { 'application/json': { schema, ...okExample } } }
    : ok === 204
      ? { description: 'Success: no body' }
      : // Every shipped route names its answer (test/unit/openapi-contract.test.ts); this is for ad-hoc tables.
        { description: 'Success: JSON of a shape the route does not declare', content: { 'application/json': { schema: {} } } };
}

/** A GET answers 304 with no body to a conditional request whose validator still matches (Express's ETag). */
const NOT_MODIFIED = {
  description: 'Not modified: the `If-None-Match` (or `If-Modified-Since`) of the request still matches; no body',
};

/** Every status the operation documents: its success, each error it can answer, and `default` for the rest. */
export function responsesOf(mod: RouteModule, r: RouteDef, withSchema: boolean, example: OperationExample | undefined): RouteConfig['responses'] {
  const responses: RouteConfig['responses'] = { [r.status ?? 200]: successResponse(r, withSchema, example) };
  for (const [status, when] of Object.entries(r.alsoAnswers ?? {})) {
    responses[status] = { ...successResponse(r, withSchema, undefined, Number(status)), description: when };
  }
  if (r.method === 'get' && (r.status ?? 200) < 300) responses[304] = NOT_MODIFIED;
  if (r.errorResponse) {
    const { statuses, mediaType, schema, description } = r.errorResponse;
    // A request that does not speak the protocol (no protocol header) gets the API's Error body at the same statuses.
    for (const s of statuses) responses[s] = { description: `${STATUS_TEXT[s] ?? 'Error'}: ${description}`, content: { [mediaType]: { schema }, 'application/json': { schema: errorSchema } } };
    // Without the protocol's header the pipeline answers as everywhere else, a body of another type included.
    if (r.consumes) responses[415] = { description: `${STATUS_TEXT[415]} (a request without the protocol's header)`, content: { 'application/json': { schema: errorSchema } } };
    responses.default = { description: "A request that does not speak the route's protocol: the API's Error shape", content: { 'application/json': { schema: errorSchema } } };
    return responses;
  }
  const hasInput = Boolean(r.params || r.query || r.body || r.consumes);
  // 400 on every operation: bad input, or at least an unreadable body (UNREADABLE_BODY).
  const errs = new Set<number>([...(r.errors ?? []), ...(r.pageErrors ?? []), 400, 500]);
  if ((r.body || r.consumes) && !r.rawBody) errs.add(415);
  if (r.auth !== 'none' && r.auth !== 'optional') errs.add(401);
  if (typeof r.auth === 'object' || r.auth === 'session-only' || r.flag) errs.add(403);
  if (limiterNamesOf(mod, r).length) errs.add(429);
  if (!mod.root && idempotencyApplies(r)) {
    errs.add(409);
    errs.add(422);
  }
  for (const s of [...errs].sort()) {
    const description = s === 400 && !hasInput && !r.errors?.includes(400) ? UNREADABLE_BODY : (STATUS_TEXT[s] ?? 'Error');
    const page = r.pageErrors?.includes(s) ? mediaTypesOf(r) : [];
    responses[s] = page.length
      ? { description: `${description}: a page, not the Error body`, content: Object.fromEntries(page.map((t) => [t, { schema: { type: 'string' as const } }])) }
      : { description, content: { 'application/json': { schema: s === 429 ? tooManySchema : errorSchema } } };
  }
  responses.default = { description: OTHER_ERRORS, content: { 'application/json': { schema: errorSchema } } };
  return responses;
}
