import type { Server } from 'node:http';
import request, { type Response } from 'supertest';
import { defineRoutes, route } from '../../src/http/define-routes';
import { globalSkipper } from '../../src/http/rate-limits';
import { limiters, modules } from '../../src/modules';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { buildContractApp, closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';

/**
 * The spec's "Rate limits" tables, written out here independently of the limiters (shared ones in
 * src/http/rate-limits.ts, each module's in its routes file) so that a wrong cap, window or
 * message in the implementation fails these tests.
 */
const GENERIC = 'Too many requests, please try again later.';
const EXPECTED: Record<string, { cap: number; window: number; message: string }> = {
  global: { cap: 100, window: 60, message: GENERIC },
  public: { cap: 300, window: 60, message: GENERIC },
  auth: { cap: 10, window: 60, message: 'Too many authentication attempts, please try again later.' },
  verificationResend: {
    cap: 5,
    window: 60,
    message: 'You have requested several verification emails in a row. Please wait a minute and try again.',
  },
  strict: { cap: 5, window: 60, message: 'Rate limit exceeded for sensitive operation.' },
  authenticated: { cap: 100, window: 60, message: 'Too many requests from this account, please try again later.' },
  referralClicks: { cap: 120, window: 60, message: GENERIC },
  presence: { cap: 4, window: 60, message: GENERIC },
  cardShare: { cap: 120, window: 60, message: GENERIC },
  orgCreation: { cap: 5, window: 3600, message: 'Too many organization registrations. Please try again later.' },
  privacyRequests: { cap: 5, window: 900, message: 'Too many privacy requests. Please try again later.' },
  memberLookup: { cap: 30, window: 60, message: 'Too many member lookups. Please wait a minute and try again.' },
  media: { cap: 30, window: 900, message: 'Too many media uploads. Please try again in a few minutes.' },
  aiImageHourly: {
    cap: 10,
    window: 3600,
    message: 'You have generated several images in a short time. Please try again later.',
  },
  aiImageDaily: {
    cap: 30,
    window: 86400,
    message: "You have reached today's limit for AI image generation. Please try again tomorrow.",
  },
  gifs: { cap: 60, window: 60, message: 'Too many GIF requests. Please wait a minute and try again.' },
  payoutRefresh: { cap: 1, window: 60, message: GENERIC },
};

// Every limiter the app builds (src/modules/index.ts collects the shared ones and each module's).
const NAMED = limiters.filter((l) => l.name !== 'global');

// One probe route per named limiter, mounted at the server root so the global bucket stays out
// of the way; `:id` feeds the IP+campaign key.
const probes = defineRoutes(
  '/rl-probe',
  [
    ...NAMED.map((limiter) =>
      route({
        method: 'post',
        path: `/${limiter.name}/:id`,
        summary: `probe for ${limiter.name}`,
        auth: 'optional',
        limiters: [limiter],
        handler: () => ({ ok: true }),
      }),
    ),
    route({
      method: 'post',
      path: '/gif-comment/:id',
      summary: 'conditional gifs limiter',
      auth: 'optional',
      limiters: [{ name: 'gifs', when: (req) => Boolean((req.body as { gif_id?: string } | undefined)?.gif_id) }],
      handler: () => ({ ok: true }),
    }),
  ],
  { root: true, tag: 'test' },
);

// Under /api/v1: one path the global limiter counts, one on its skip list (public profile reads).
const apiProbes = defineRoutes(
  '',
  [
    route({ method: 'get', path: '/rl-probe/global', summary: 'global only', auth: 'none', handler: () => ({ ok: true }) }),
    route({
      method: 'get',
      path: '/profiles/rl-probe/skip-check/x',
      summary: 'skipped by global, public applies',
      auth: 'none',
      skipGlobalLimiter: true,
      limiters: ['public'],
      handler: () => ({ ok: true }),
    }),
    // Under a prefix whose reads skip the global bucket, but not declaring it: counted.
    route({ method: 'get', path: '/profiles/rl-probe/undeclared/x', summary: 'counted by global', auth: 'none', limiters: ['public'], handler: () => ({ ok: true }) }),
  ],
  { tag: 'test' },
);

/** The app's skip list for the mounted tables (real modules plus the probes). */
const skipsGlobal = globalSkipper([...modules, apiProbes, probes]);

let ipSeq = 0;
/** A fresh client address per use (TRUST_PROXY=true makes Express read X-Forwarded-For). */
const freshIp = () => `10.${(ipSeq >> 8) & 255}.${ipSeq++ & 255}.${Math.floor(Math.random() * 250) + 1}`;

function startApp(env: Record<string, string> = {}): { t: TestApp; server: Server } {
  const base = createTestApp({ env: { TRUST_PROXY: 'true', ...env } });
  const app = buildContractApp(base.ctx, [...modules, apiProbes, probes]);
  const t: TestApp = { ...base, app };
  return { t, server: app.listen(0) };
}

interface Hit {
  method?: 'get' | 'post';
  path: string;
  ip: string;
  headers?: Record<string, string>;
  body?: object;
}

function hit(server: Server, h: Hit): Promise<Response> {
  const r = (h.method ?? 'post') === 'get' ? request(server).get(h.path) : request(server).post(h.path).send(h.body ?? {});
  r.set('X-Forwarded-For', h.ip);
  for (const [k, v] of Object.entries(h.headers ?? {})) r.set(k, v);
  return r;
}

/** Sends n requests in parallel batches; returns the responses in send order. */
async function hitMany(server: Server, n: number, h: Hit): Promise<Response[]> {
  const out: Response[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => hit(server, h)));
    out.push(...batch);
  }
  return out;
}

function expectNoLegacyHeaders(responses: Response[]) {
  for (const r of responses) {
    expect(Object.keys(r.headers).filter((k) => k.startsWith('x-ratelimit'))).toEqual([]);
  }
}

function expect429(res: Response, cap: number, window: number, message: string) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: message, retryAfter: window, request_id: res.headers['x-request-id'] });
  expect(res.headers['ratelimit-policy']).toBe(`${cap};w=${window}`);
  expect(res.headers['ratelimit-limit']).toBe(String(cap));
  expect(res.headers['ratelimit-remaining']).toBe('0');
  // Seconds remaining, not a timestamp.
  const reset = Number(res.headers['ratelimit-reset']);
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThan(0);
  expect(reset).toBeLessThanOrEqual(window);
  const retry = Number(res.headers['retry-after']);
  expect(Number.isInteger(retry)).toBe(true);
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(window);
}

const USER_KEYED = new Set(['verificationResend', 'referralClicks', 'orgCreation', 'memberLookup', 'media', 'aiImageHourly', 'aiImageDaily', 'gifs', 'payoutRefresh']);

describe('rate limits', () => {
  let t: TestApp;
  let server: Server;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    ({ t, server } = startApp());
    alice = await createUser(testDb());
    bob = await createUser(testDb());
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await closeDb();
  });

  test('when the limiters are collected then they are exactly the spec limiters', () => {
    expect(limiters.map((l) => l.name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  test('when the global skip list is asked then public reads with both buckets are not skipped and own-bucket routes are', () => {
    // The spec names these as carrying both the global and the public bucket.
    for (const p of ['/locations', '/leaderboard', '/achievements/x', '/platform/numbers', '/stats']) expect([p, skipsGlobal('GET', p)]).toEqual([p, false]);
    for (const [m, p] of [
      ['POST', '/presence/fundraisers/abc'],
      ['GET', '/fundraisers'],
      ['GET', '/fundraisers/abc'],
      ['GET', '/home/activity'],
      ['GET', '/idp/verify-email'],
      ['POST', '/referrals/clicks'],
      ['GET', '/cards/abc/qr.svg'],
      ['GET', '/payouts/earnings'],
    ]) expect([m, p, skipsGlobal(m, p)]).toEqual([m, p, true]);
    // Writes to browsing paths still count globally.
    expect(skipsGlobal('POST', '/fundraisers')).toBe(false);
  });

  test.each(NAMED.map((l) => l.name))('when the %s limiter is exceeded then 429 with its message, retryAfter and draft-6 headers', async (name) => {
    const { cap, window, message } = EXPECTED[name];
    const ip = freshIp();
    const user = USER_KEYED.has(name) ? await createUser(testDb()) : null;
    const headers = user ? await authHeaders(t, user) : {};
    const h: Hit = { path: `/rl-probe/${name}/${'c'.repeat(8)}`, ip, headers };
    const ok = await hitMany(server, cap, h);
    expect(ok.map((r) => r.status)).toEqual(Array(cap).fill(200));
    for (const r of ok) {
      expect(r.headers['ratelimit-policy']).toBe(`${cap};w=${window}`);
      expect(r.headers['ratelimit-limit']).toBe(String(cap));
    }
    const remaining = ok.map((r) => Number(r.headers['ratelimit-remaining'])).sort((a, b) => b - a);
    expect(remaining[0]).toBe(cap - 1);
    expect(remaining[cap - 1]).toBe(0);
    const over = await hit(server, h);
    expect429(over, cap, window, message);
    expectNoLegacyHeaders([...ok, over]);
  });

  test('when the global limiter is exceeded on a counted path then 429 with 100;w=60 and no headers before that', async () => {
    const h: Hit = { method: 'get', path: '/api/v1/rl-probe/global', ip: freshIp() };
    const ok = await hitMany(server, 100, h);
    expect(ok.every((r) => r.status === 200)).toBe(true);
    // No named limiter on this operation: no RateLimit headers while under the cap.
    expect(ok.every((r) => r.headers['ratelimit-limit'] === undefined && r.headers['ratelimit-policy'] === undefined)).toBe(true);
    const over = await hit(server, h);
    expect429(over, 100, 60, GENERIC);
    expectNoLegacyHeaders([...ok, over]);
    // Another client is unaffected.
    expect((await hit(server, { ...h, ip: freshIp() })).status).toBe(200);
  });

  test('when a public path is not on the global skip list then both buckets count and the global 100 trips first', async () => {
    const h: Hit = { method: 'get', path: '/api/v1/platform/numbers', ip: freshIp() };
    const ok = await hitMany(server, 100, h);
    expect(ok.every((r) => r.status === 200)).toBe(true);
    // Headers come from the last limiter in the chain (public, 300 a minute) ...
    expect(ok.every((r) => r.headers['ratelimit-policy'] === '300;w=60')).toBe(true);
    // ... and its bucket counted every request.
    expect(Math.min(...ok.map((r) => Number(r.headers['ratelimit-remaining'])))).toBe(200);
    const over = await hit(server, h);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error: GENERIC, retryAfter: 60 });
    // The 429 comes from the global bucket, which refused it, so its headers describe that bucket.
    expect(over.headers['ratelimit-policy']).toBe('100;w=60');
    expect(over.headers['retry-after']).toMatch(/^\d+$/);
    expectNoLegacyHeaders([...ok, over]);
  });

  test('when a route does not declare skipGlobalLimiter then the global 100 counts it, whatever its path looks like', async () => {
    const h: Hit = { method: 'get', path: '/api/v1/profiles/rl-probe/undeclared/x', ip: freshIp() };
    const ok = await hitMany(server, 100, h);
    expect(ok.every((r) => r.status === 200)).toBe(true);
    const over = await hit(server, h);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error: GENERIC, retryAfter: 60 });
  });

  test('when a route declares skipGlobalLimiter then it keeps answering past 100 under the public 300', async () => {
    const h: Hit = { method: 'get', path: '/api/v1/profiles/rl-probe/skip-check/x', ip: freshIp() };
    const res = await hitMany(server, 150, h);
    expect(res.every((r) => r.status === 200)).toBe(true);
    expect(Math.min(...res.map((r) => Number(r.headers['ratelimit-remaining'])))).toBe(150);
    expect(res[0].headers['ratelimit-policy']).toBe('300;w=60');
  });

  test('when an operation has no named limiter then no RateLimit headers are sent', async () => {
    const res = await request(server).get('/api/v1/features').set(await authHeaders(t, alice)).set('X-Forwarded-For', freshIp());
    expect(res.status).toBe(200);
    expect(Object.keys(res.headers).filter((k) => k.includes('ratelimit') || k === 'retry-after')).toEqual([]);
  });

  test('when /healthz and /readyz are hammered then they never answer 429 nor send RateLimit headers', async () => {
    const ip = freshIp();
    const res = [
      ...(await hitMany(server, 150, { method: 'get', path: '/healthz', ip })),
      ...(await hitMany(server, 120, { method: 'get', path: '/readyz', ip })),
    ];
    expect(res.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(res.every((r) => r.headers['ratelimit-limit'] === undefined)).toBe(true);
  });

  describe('keys', () => {
    const exhaust = async (h: Hit, cap: number) => {
      const res = await hitMany(server, cap + 1, h);
      expect(res.filter((r) => r.status === 429)).toHaveLength(1);
    };

    test('when one IP exhausts an IP-keyed limiter then another IP still passes', async () => {
      const h: Hit = { path: '/rl-probe/strict/x', ip: freshIp() };
      await exhaust(h, 5);
      expect((await hit(server, h)).status).toBe(429);
      expect((await hit(server, { ...h, ip: freshIp() })).status).toBe(200);
    });

    test('when a user exhausts a user-keyed limiter then the user is refused from any IP and others pass', async () => {
      const carol = await createUser(testDb());
      const h: Hit = { path: '/rl-probe/verificationResend/x', ip: freshIp(), headers: await authHeaders(t, carol) };
      await exhaust(h, 5);
      expect((await hit(server, { ...h, ip: freshIp() })).status).toBe(429);
      expect((await hit(server, { ...h, headers: await authHeaders(t, alice) })).status).toBe(200);
      // Signed out, the same limiter counts per IP: a guest on that IP has its own bucket.
      expect((await hit(server, { ...h, headers: {} })).status).toBe(200);
    });

    test('when a guest exhausts a user-keyed limiter then it is counted per IP', async () => {
      const h: Hit = { path: '/rl-probe/verificationResend/x', ip: freshIp() };
      await exhaust(h, 5);
      expect((await hit(server, { ...h, ip: freshIp() })).status).toBe(200);
      expect((await hit(server, { ...h, headers: await authHeaders(t, bob) })).status).toBe(200);
    });

    test('when an IP exhausts presence for one campaign then other campaigns and other IPs pass', async () => {
      const ip = freshIp();
      const h: Hit = { path: '/rl-probe/presence/campaign-a', ip };
      await exhaust(h, 4);
      expect((await hit(server, { ...h, path: '/rl-probe/presence/campaign-b' })).status).toBe(200);
      expect((await hit(server, { ...h, ip: freshIp() })).status).toBe(200);
    });

    test('when a user exhausts an IP+user limiter then the same user elsewhere and another user here pass', async () => {
      const dave = await createUser(testDb());
      const h: Hit = { path: '/rl-probe/orgCreation/x', ip: freshIp(), headers: await authHeaders(t, dave) };
      await exhaust(h, 5);
      expect((await hit(server, { ...h, ip: freshIp() })).status).toBe(200);
      expect((await hit(server, { ...h, headers: await authHeaders(t, bob) })).status).toBe(200);
    });

    test('when payout refresh names an account then the bucket is per account', async () => {
      const h: Hit = { path: '/rl-probe/payoutRefresh/x', ip: freshIp(), headers: await authHeaders(t, alice), body: { accountId: 'acct_one' } };
      await exhaust(h, 1);
      expect((await hit(server, { ...h, body: { accountId: 'acct_two' } })).status).toBe(200);
      // Same account from another IP and user: still the same bucket.
      expect((await hit(server, { ...h, ip: freshIp(), headers: await authHeaders(t, bob) })).status).toBe(429);
    });

    test('when a conditional limiter does not apply then the request is neither limited nor counted', async () => {
      const eve = await createUser(testDb());
      const h: Hit = { path: '/rl-probe/gif-comment/x', ip: freshIp(), headers: await authHeaders(t, eve) };
      const plain = await hitMany(server, 70, h);
      expect(plain.every((r) => r.status === 200 && r.headers['ratelimit-limit'] === undefined)).toBe(true);
      const withGif = await hitMany(server, 61, { ...h, body: { gif_id: 'g1' } });
      expect(withGif.filter((r) => r.status === 429)).toHaveLength(1);
      // The comment route and the GIF reads share one bucket.
      expect((await hit(server, { ...h, path: '/rl-probe/gifs/x' })).status).toBe(429);
    });
  });

  test('when CARD_SHARE_RATE_LIMIT is set then the card share cap follows it', async () => {
    const other = startApp({ CARD_SHARE_RATE_LIMIT: '7' });
    try {
      const h: Hit = { path: '/rl-probe/cardShare/x', ip: freshIp() };
      const ok = await hitMany(other.server, 7, h);
      expect(ok.every((r) => r.status === 200)).toBe(true);
      expect429(await hit(other.server, h), 7, 60, GENERIC);
    } finally {
      await new Promise((r) => other.server.close(r));
    }
  });
});
