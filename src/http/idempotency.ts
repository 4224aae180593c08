import { createHash, randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { AppContext } from '../context';
import type { Actor } from './actor';
import { actorOrNull } from './credentials';
import { ApiError } from './errors';
import { redactAnswer } from './secret-fields';
import { claimKey, completeKey, releaseKey, type KeyRequest, type StoredKey } from './idempotency.repo';

export { forgetAnswersOf, pruneIdempotencyKeys } from './idempotency.repo';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Every unsigned caller shares this scope (clients should send random UUIDs). */
export const GUEST_SCOPE = 'guest';
/** 1 to 255 printable ASCII characters (docs/decisions/0010-idempotency-keys.md). */
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;
/** What a replay repeats besides status and body: never Set-Cookie (a session is not an answer to replay). */
const REPLAYED_HEADERS = ['content-type', 'content-language', 'location', 'etag'];

/** The route facts that decide whether a route takes Idempotency-Key (see `idempotencyApplies`). */
export interface IdempotencyDecl {
  method: string;
  idempotent?: boolean;
  rawBody?: boolean;
}

/**
 * Whether a route honours Idempotency-Key: what it declares, else every POST except raw-body
 * routes (the Stripe webhook dedupes by event id). Root routes and /idp/* declare false through
 * defineRoutes.
 */
export const idempotencyApplies = (def: IdempotencyDecl): boolean => def.idempotent ?? (def.method === 'post' && !def.rawBody);

/** The request's key: undefined without one, 400 when it is not 1 to 255 printable ASCII characters. */
export function keyOf(req: Request): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY_FORMAT.test(key)) {
    throw new ApiError(400, 'Bad request', 'Idempotency-Key must be 1 to 255 printable ASCII characters', { code: 'INVALID_IDEMPOTENCY_KEY' });
  }
  return key;
}

/** JSON with object keys sorted at every level, so `{a,b}` and `{b,a}` are one body. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The body's fingerprint: its canonical JSON (parsed JSON or form bodies; none counts as `{}`).
 * A multipart upload is read by its handler, not here, so only its kind is fingerprinted: the
 * key still dedupes it, but a different file under the same key is not told apart.
 */
function fingerprintOf(req: Request): string {
  const basis = req.is('multipart/*') ? 'multipart' : canonical(req.body ?? {});
  return createHash('sha256').update(basis, 'utf8').digest('hex');
}

const reused = () =>
  new ApiError(422, 'Idempotency key reuse', 'This Idempotency-Key was used for a different request (method, path or body)', { code: 'IDEMPOTENCY_KEY_REUSED' });

function inUse(res: Response): ApiError {
  res.setHeader('Retry-After', '1');
  return new ApiError(409, 'Conflict', 'A request with this Idempotency-Key is still being processed; retry shortly', { code: 'IDEMPOTENCY_KEY_IN_USE' });
}

function replay(res: Response, row: StoredKey): void {
  for (const [name, value] of Object.entries(row.response_headers ?? {})) res.setHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  res.status(row.status_code!);
  if (row.response_body?.length) res.end(row.response_body);
  else res.end();
}

type Where = { scope: string; key: string; claim: string };

/**
 * What is kept of an answer: with its secret fields redacted (the first answer still goes out
 * whole), or null when the body cannot be read for them (then the key is freed, never stored).
 * A redacted copy drops its ETag, which named the body as sent.
 */
function storedAnswer(body: Buffer, headers: Record<string, string>, secretFields: readonly string[]): { body: Buffer; headers: Record<string, string> } | null {
  if (!secretFields.length) return { body, headers };
  const redacted = redactAnswer(body, secretFields);
  if (!redacted) return null;
  if (!redacted.redacted) return { body, headers };
  const { etag: _etag, ...rest } = headers;
  return { body: redacted.body, headers: rest };
}

/**
 * Holds the response's end until its answer is stored under our claim (< 500) or the claim is
 * freed (5xx), whoever renders it (the pipeline, the error middleware, a handler writing
 * itself), so a retry that arrives after the answer always finds it stored.
 */
function storeAnswerOnEnd(ctx: AppContext, req: Request, res: Response, where: Where, secretFields: readonly string[]): void {
  const chunks: Buffer[] = [];
  const toBuffer = (chunk: unknown, enc?: unknown) =>
    Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, (typeof enc === 'string' ? enc : 'utf8') as BufferEncoding) : Buffer.from(chunk as Uint8Array);
  const write = res.write;
  const end = res.end;
  res.write = function captureWrite(this: Response, chunk: any, ...rest: any[]) {
    if (chunk) chunks.push(toBuffer(chunk, rest[0]));
    return (write as any).call(this, chunk, ...rest);
  } as Response['write'];
  res.end = function captureEnd(this: Response, chunk?: any, enc?: any, cb?: any) {
    if (typeof chunk === 'function') [cb, chunk, enc] = [chunk, undefined, undefined];
    else if (typeof enc === 'function') [cb, enc] = [enc, undefined];
    if (chunk) chunks.push(toBuffer(chunk, enc));
    res.write = write;
    res.end = end;
    const status = res.statusCode;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const v = res.getHeader(name);
      if (v !== undefined) headers[name] = String(v);
    }
    const stored = status >= 500 ? null : storedAnswer(Buffer.concat(chunks), headers, secretFields);
    const store = stored ? completeKey(ctx.db, where, { status, headers: stored.headers, body: stored.body }) : releaseKey(ctx.db, where);
    store
      .catch((err: unknown) => {
        // The answer still goes out; an unstored key is freed (best effort) or goes stale.
        req.log?.warn({ err: (err as Error)?.message }, 'could not store the idempotent answer');
        return releaseKey(ctx.db, where).catch(() => undefined);
      })
      .finally(() => (end as any).call(res, chunk, enc, cb));
    return res;
  } as Response['end'];
  // A client that gives up (timeout, dropped connection) does not free the key: its handler still
  // runs, and its answer is stored when it ends, for the retry to replay. A handler that never
  // answers leaves a stale claim that a retry takes over after STALE_IN_FLIGHT_MINUTES.
}

/**
 * Before the handler: with no key, nothing (answers false). Otherwise the key is claimed for the
 * caller's scope, or the request is answered here: the stored answer again (answers true), 422
 * for the key reused on a different request, 409 while the first still runs.
 */
export async function beginIdempotent(
  ctx: AppContext,
  req: Request,
  res: Response,
  actor: Actor | null,
  key: string,
  secretFields: readonly string[] = [],
): Promise<boolean> {
  // Routes with auth 'none' skip credentials; a signed-in caller still gets their own scope there.
  const who = actor ?? (await actorOrNull(req, ctx.credentials));
  const request: KeyRequest = {
    scope: who ? who.userId : GUEST_SCOPE,
    key,
    method: req.method,
    path: req.originalUrl.split('?')[0]!,
    fingerprint: fingerprintOf(req),
  };
  const claim = randomUUID();
  // A key freed between our claim and our read (a 5xx) is free again: try once more.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const got = await claimKey(ctx.db, request, claim);
    if (got.claimed) {
      storeAnswerOnEnd(ctx, req, res, { scope: request.scope, key, claim }, secretFields);
      return false;
    }
    const row = got.row;
    if (!row) continue;
    if (row.method !== request.method || row.path !== request.path || row.fingerprint !== request.fingerprint) throw reused();
    if (row.state === 'in_flight') throw inUse(res);
    replay(res, row);
    return true;
  }
  throw inUse(res);
}
