import express, { type Request, type RequestHandler, type Response } from 'express';
import { sendPrepared, type PreparedAnswer } from '../caching';

/**
 * The headers of one cached answer exactly as the full path writes them (names, values, order),
 * as one flat [name, value, ...] list for a single writeHead, with the slots of the values that
 * change per request: the request id and the four RateLimit headers.
 */
export interface HeaderTemplate {
  status: number;
  flat: string[];
  /** false for a 304 (no Content-Type, Content-Length or body). */
  body: boolean;
  id: number;
  policy: number;
  limit: number;
  remaining: number;
  reset: number;
}

const SLOT = '\u0000';

/**
 * A stand-in response that keeps headers the way node:http does (one entry per lower-case name,
 * in first-set order, the last name spelling and value), so the real middleware and sendPrepared
 * can be run against it and their output replayed.
 */
class Recorder {
  readonly headers = new Map<string, [string, string]>();
  statusCode = 200;
  ended = false;

  setHeader(name: string, value: unknown): this {
    this.headers.set(name.toLowerCase(), [name, String(value)]);
    return this;
  }
  getHeader(name: string): string | undefined {
    return this.headers.get(name.toLowerCase())?.[1];
  }
  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }
  vary(field: string): this {
    (express.response.vary as (this: unknown, f: string) => unknown).call(this, field);
    return this;
  }
  status(code: number): this {
    this.statusCode = code;
    return this;
  }
  end(): void {
    this.ended = true;
  }
}

/**
 * Runs what the full path runs on a guest hit, in its order, against a Recorder: the request id
 * (requestLogging), the security and CORS headers (`statics`, the app's own middleware), the
 * limiter's draft-6 headers (express-rate-limit's order), then sendPrepared itself, for a request
 * with no If-None-Match (`notModified` false) or with the answer's ETag (true: the 304).
 */
export function templateOf(statics: RequestHandler, answer: PreparedAnswer, notModified: boolean): HeaderTemplate {
  const rec = new Recorder();
  const headers: Record<string, string> = notModified ? { 'if-none-match': answer.etag } : {};
  const req = { method: 'GET', headers } as unknown as Request;
  const res = rec as unknown as Response;
  rec.setHeader('X-Request-Id', `${SLOT}id`);
  let passed = false;
  statics(req, res, () => (passed = true));
  if (!passed) throw new Error('the static header middleware did not pass a plain GET on synchronously');
  for (const name of ['RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) rec.setHeader(name, `${SLOT}${name}`);
  sendPrepared(req, res, answer);
  if (!rec.ended) throw new Error('sendPrepared did not answer');
  const flat = [...rec.headers.values()].flat();
  const at = (slot: string) => flat.indexOf(`${SLOT}${slot}`);
  return {
    status: rec.statusCode,
    flat,
    body: rec.statusCode !== 304,
    id: at('id'),
    policy: at('RateLimit-Policy'),
    limit: at('RateLimit-Limit'),
    remaining: at('RateLimit-Remaining'),
    reset: at('RateLimit-Reset'),
  };
}
