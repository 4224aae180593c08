import type { IncomingHttpHeaders } from 'node:http';
import { startFakeServer, type FakeServer } from './fake-http';

/** One request the Stripe SDK sent, with its form-encoded body parsed. */
export interface StripeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  form: URLSearchParams;
}

export type StripeAnswer = (method: string, path: string, form: URLSearchParams, query: URLSearchParams) => [number, Record<string, unknown>];

/**
 * A Stripe-compatible server for the file's tests (started before them, closed after), which
 * records every request (cleared before each test) and answers what `answer` says. Point the
 * adapter at it with STRIPE_API_URL = `url()`.
 */
export function stripeDouble(answer: StripeAnswer): { seen: StripeRequest[]; url(): string } {
  const seen: StripeRequest[] = [];
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeServer((r) => {
      const url = new URL(r.url, 'http://x');
      const form = new URLSearchParams(r.body);
      seen.push({ method: r.method, path: url.pathname, query: url.searchParams, headers: r.headers, form });
      const [status, body] = answer(r.method, url.pathname, form, url.searchParams);
      return { status, body };
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    seen.length = 0;
  });
  return { seen, url: () => server.url };
}
