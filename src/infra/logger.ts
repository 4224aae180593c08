import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, RequestHandler } from 'express';
import pino, { type Logger } from 'pino';

export type { Logger };

const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 200;

/**
 * Lines go to stdout through a 4 KB buffer (pino's asynchronous sonic-boom), written when it fills
 * and at least every 200 ms: a synchronous write per line, one line per request, cost a cache hit
 * as much CPU as the rest of its answer (bench/results/hit-ratio.md). Pino flushes what is
 * pending when the process exits (process.exit, beforeExit, an uncaught exception); a hard kill or
 * a power cut loses at most the last 200 ms of lines.
 */
export function createLogger(level: string, dest?: pino.DestinationStream): Logger {
  // A request line never carries headers (httpLogSerializers); anything else logged as `req` or
  // `res` goes through the same serializers, so no credential or cookie reaches the log.
  const options = { level, serializers: { req: httpLogSerializers.req, res: httpLogSerializers.res } };
  if (dest) return pino(options, dest);
  // A silent log writes nothing: no destination, so no buffer, timer or exit handlers.
  if (level === 'silent') return pino(options);
  // sonic-boom's own timer flushes the buffer (unref'd, cleared when the stream is destroyed).
  const out = pino.destination({ sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS });
  // A stdout that fails loses the log, not the process. Pino already silences a broken pipe
  // (EPIPE) and re-emits anything else (a full disk under a redirected stdout), which with no
  // listener would throw.
  out.on('error', () => undefined);
  return pino(options, out);
}

/**
 * One short line per request (method, url, id; status). Headers are left out so credentials
 * and cookies never reach the log and lines stay small.
 */
export const httpLogSerializers = {
  req: (req: { id?: unknown; method?: string; url?: string }) => ({ id: req.id, method: req.method, url: req.url }),
  res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
};

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const OWN_LOG = Symbol('request-log');

type LoggedRequest = Request & { [OWN_LOG]?: Logger };

const reqLine = (req: IncomingMessage & { originalUrl?: string }) =>
  httpLogSerializers.req({ id: (req as { id?: unknown }).id, method: req.method, url: req.originalUrl ?? req.url });

/**
 * The request log, in place of pino-http (whose per-request child loggers and listeners cost
 * ~8% of a hot read even at level silent), writing the same lines: `X-Request-Id` (the caller's
 * when well-formed, else a UUID) on every answer and as `req.id`; on completion one line with
 * `req`, `res`, `responseTime` at info, or at error with `err` for a 5xx ('request errored').
 * `req.log` (a child bound to the request line) is built only when a handler logs through it.
 */
export function requestLogging(app: Express, log: Logger): RequestHandler {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: LoggedRequest) {
      return (this[OWN_LOG] ??= log.child({ req: reqLine(this) }));
    },
    set(this: LoggedRequest, value: Logger) {
      this[OWN_LOG] = value;
    },
  });
  return (req, res, next) => {
    res.setHeader('X-Request-Id', assignRequestId(req));
    logWhenClosed(log, req, res);
    next();
  };
}

/** The request's id (the caller's X-Request-Id when well-formed, else a UUID), set as `req.id`. */
export function assignRequestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  (req as { id?: unknown }).id = id;
  return id;
}

/** The request's log line once it closes (none when the log is silent: no listener then). */
export function logWhenClosed(log: Logger, req: IncomingMessage, res: ServerResponse): void {
  // error is the highest level this log writes at: below it nothing is written, so no listener.
  if (!log.isLevelEnabled('error')) return;
  const start = Date.now();
  // 'close' follows 'finish' on a completed answer and comes alone on an aborted one.
  res.once('close', () => logAnswered(log, req, res, start));
}

/**
 * The request's log line now, for an answer written whole and synchronously (the read cache's
 * fast path: nothing is left to wait for, so no 'close' listener per request).
 */
export function logAnswered(log: Logger, req: IncomingMessage, res: ServerResponse, startMs: number): void {
  if (!log.isLevelEnabled('error')) return;
  const line = { req: reqLine(req), res: httpLogSerializers.res(res), responseTime: Date.now() - startMs };
  if (res.statusCode >= 500) log.error({ ...line, err: new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
  else log.info(line, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
}

// Every request carries its logger (`req.log`, built on first use by requestLogging) and id.
declare module 'http' {
  interface IncomingMessage {
    log: Logger;
    id?: string;
  }
}
