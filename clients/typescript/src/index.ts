import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };
/** Every named schema of the document, e.g. `Schemas['Error']`. */
export type Schemas = components['schemas'];
/**
 * An error body: `{ error, message, code?, request_id, ... }`, or a 429's: a rate limiter's
 * `{ error, retryAfter }`, a CAPTCHA demand `{ error, requiresCaptcha, reason }`, a used-up quota `{ error, message, code }`.
 */
export type ApiErrorBody = Schemas['Error'] | Schemas['TooManyRequests'];
export type ApiClient = Client<paths>;

export interface ClientOptions {
  /** The service's origin, e.g. `https://api.example.org` (paths carry their `/api/v1`). */
  baseUrl: string;
  /** An API key (`ak_live_...`) for scripts and servers. */
  apiKey?: string;
  /** An identity-provider ID token, for native apps; called before each request so it can refresh. */
  idToken?: string | (() => string | Promise<string>);
  /** Adds a random `Idempotency-Key` to every POST that has none, so a retried request has one effect. Default true. */
  idempotency?: boolean;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
}

function authMiddleware(opts: ClientOptions): Middleware {
  return {
    async onRequest({ request }) {
      const token = opts.apiKey ?? (typeof opts.idToken === 'function' ? await opts.idToken() : opts.idToken);
      if (token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${token}`);
      return request;
    },
  };
}

const idempotencyMiddleware: Middleware = {
  onRequest({ request }) {
    if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) {
      request.headers.set('Idempotency-Key', crypto.randomUUID());
    }
    return request;
  },
};

/** A typed client: `client.GET('/api/v1/fundraisers/slug/{slug}', { params: { path: { slug } } })`. */
export function createApiClient(opts: ClientOptions): ApiClient {
  const client = createClient<paths>({ baseUrl: opts.baseUrl.replace(/\/+$/, ''), fetch: opts.fetch, headers: opts.headers });
  if (opts.apiKey || opts.idToken) client.use(authMiddleware(opts));
  if (opts.idempotency !== false) client.use(idempotencyMiddleware);
  return client;
}

/** One line for a person, whichever error shape came back. */
export function describeError(body: ApiErrorBody | undefined): string {
  if (!body) return 'No answer body';
  if ('message' in body && typeof body.message === 'string') return `${body.error}: ${body.message}`;
  if ('retryAfter' in body) return `${body.error} (retry in ${body.retryAfter} s)`;
  return body.error;
}
