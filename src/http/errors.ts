import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { sendCognitoFault, speaksCognito } from '../integrations/idp/cognito-faults';
import { DB_RETRY_AFTER_S, isDatabaseUnavailable } from '../db/availability';

/** The one error type. Renders as `{ error, message, ...extra }`, never wrapped. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message ?? error);
  }

  body(): Record<string, unknown> {
    return { error: this.error, message: this.message, ...this.extra };
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new ApiError(400, 'Bad request', message, extra);
export const notFound = (what = 'Resource') => new ApiError(404, 'Not found', `${what} not found`);
export const forbidden = (message = 'You do not have permission to do this', extra?: Record<string, unknown>) =>
  new ApiError(403, 'Forbidden', message, extra);

/** 503 DATABASE_UNAVAILABLE (docs/decisions/0011-outages-answer-503.md); the error middleware adds Retry-After. */
export const databaseUnavailable = () =>
  new ApiError(503, 'Service temporarily unavailable', 'The database is unreachable or too slow; please retry shortly', {
    code: 'DATABASE_UNAVAILABLE',
    retryAfter: DB_RETRY_AFTER_S,
  });

export function zodDetails(err: ZodError): Array<{ path: string; message: string }> {
  return err.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

export function validationError(err: ZodError, where: 'body' | 'query' | 'params'): ApiError {
  const details = zodDetails(err).map((d) => ({ ...d, path: d.path ? `${where}.${d.path}` : where }));
  const first = details[0];
  return new ApiError(400, 'Validation failed', first ? `${first.path}: ${first.message}` : 'Invalid request', {
    details,
  });
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, 'Not found', `No route for ${req.method} ${req.baseUrl}${req.path}`));
};

/** SQLSTATE class 22 (data exception): out-of-range numbers and dates, too-long strings, bad formats. */
const isDataException = (code: unknown): boolean => typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);

const STATUS_ERROR: Record<number, string> = { 413: 'Payload too large', 415: 'Unsupported media type' };

/**
 * The AWS SDK on POST /local-idp/ reads only Cognito's `{ __type, message }`; pipeline failures
 * there (unreadable body, wrong media type, ...) take the fault Cognito would send.
 */
function cognitoType(e: ApiError): string {
  if (e.status >= 500) return 'InternalErrorException';
  if (e.status === 415 || e.error === 'Invalid JSON') return 'SerializationException';
  return 'InvalidParameterException';
}

interface HttpLikeError { status?: number; statusCode?: number; type?: string; expose?: boolean; code?: string }

/**
 * Every error body carries `request_id`, the answer's `X-Request-Id`, so a user's bug report
 * can be found in the logs (docs/decisions/0011-outages-answer-503.md).
 */
export function withRequestId(req: { id?: unknown }, body: Record<string, unknown>): Record<string, unknown> {
  const id = req.id;
  return typeof id === 'string' ? { ...body, request_id: id } : body;
}

/** The one error middleware. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  let apiErr: ApiError;
  if (err instanceof ApiError) apiErr = err;
  else if (err instanceof ZodError) apiErr = validationError(err, 'body');
  else {
    const e = err as HttpLikeError;
    const status = e.status ?? e.statusCode;
    if (e.type === 'entity.parse.failed') apiErr = new ApiError(400, 'Invalid JSON', 'The request body is not valid JSON');
    else if (e.type === 'entity.too.large') apiErr = new ApiError(413, 'Payload too large', 'The request body is too large');
    else if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
      apiErr = new ApiError(415, 'Unsupported media type', 'Unsupported body encoding');
    // The router could not percent-decode a path parameter (`/fundraisers/%`): the client's URL is
    // malformed, so it is a 400 like any other bad input, not a server fault.
    else if (err instanceof URIError)
      apiErr = new ApiError(400, 'Bad request', 'The URL contains malformed percent-encoding', { code: 'MALFORMED_URL' });
    else if (e.code === '23505') apiErr = new ApiError(409, 'Conflict', 'The resource already exists');
    else if (e.code === '22P02') apiErr = new ApiError(400, 'Bad request', 'A value has the wrong format');
    // 22021: a NUL byte (or other invalid byte sequence) in text input; 22P05: \u0000 in a JSON value.
    else if (e.code === '22021' || e.code === '22P05') apiErr = new ApiError(400, 'Bad request', 'A value contains characters that cannot be stored');
    else if (isDataException(e.code)) {
      // Safety net only: schemas bound every value, so reaching here is a schema gap worth a warning.
      req.log?.warn({ code: e.code, err: (err as Error).message }, 'data exception from the database (schema gap)');
      apiErr = new ApiError(400, 'Bad request', 'A value is out of range or has the wrong format');
    } else if (e.code === '40P01' || e.code === '40001') {
      // A deadlock or a serialization failure: this request lost a race that a retry wins; nothing was kept.
      req.log?.warn({ code: e.code, err: (err as Error).message }, 'transaction lost a race; asked to retry');
      apiErr = new ApiError(503, 'Service temporarily unavailable', 'The request met a concurrent one; please retry', { code: 'RETRY', retryAfter: 1 });
    } else if (isDatabaseUnavailable(err)) {
      // Database away, frozen or too slow (docs/decisions/0011-outages-answer-503.md): never a 500; say when to retry.
      req.log?.warn({ code: e.code, err: (err as Error).message }, 'database unavailable');
      apiErr = databaseUnavailable();
    } else if (status && status >= 400 && status < 500)
      apiErr = new ApiError(status, e.expose ? (STATUS_ERROR[status] ?? 'Bad request') : 'Bad request', e.expose ? (err as Error).message : 'The request is malformed');
    else {
      const id = (req as { id?: unknown }).id;
      req.log?.error({ err, requestId: id }, 'unhandled error');
      apiErr = new ApiError(500, 'Internal server error', 'Something went wrong; the error was logged', {
        requestId: id,
      });
    }
  }
  if (res.headersSent) return;
  if ((apiErr.status === 503 || apiErr.status === 429) && typeof apiErr.extra.retryAfter === 'number' && !res.getHeader('Retry-After') && !res.locals.bareRateLimit)
    res.setHeader('Retry-After', String(apiErr.extra.retryAfter));
  // A database outage stays a 503 for the SDK too (it retries 5xx); other server faults are Cognito's 500.
  if (speaksCognito(req)) return sendCognitoFault(res, cognitoType(apiErr), apiErr.message, apiErr.status >= 500 ? (apiErr.status === 503 ? 503 : 500) : 400);
  res.status(apiErr.status).json(withRequestId(req, apiErr.body()));
};
