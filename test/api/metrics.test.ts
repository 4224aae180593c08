import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Request, Response } from 'express';
import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver } from '../helpers/stripe';
import { piSucceeded, startGift } from './donations-fixtures';
import { enqueue } from '../../src/infra/jobs';
import { HEAVY_DEFAULT_FAMILIES, metricsEndpoint } from '../../src/infra/metrics';

afterAll(closeDb);

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text exposition format: `# HELP`/`# TYPE` lines and `name{a="b",...} value` samples. */
function parse(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) {
      types.set(t[1]!, t[2]!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { types, samples };
}

describe('GET /metrics', () => {
  it('when scraped from loopback, then every documented family is exposed and routes are patterns, never raw ids', async () => {
    const t = createTestApp();
    const id = randomUUID();
    await request(t.app).get(`/api/v1/fundraisers/${id}`).expect(404);
    const task = `metrics-${randomUUID()}`;
    await enqueue(t.ctx.db, task, {});
    const res = await request(t.app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const { types, samples } = parse(res.text);
    expect(Object.fromEntries([...types].filter(([n]) => !n.startsWith('process_') && !n.startsWith('nodejs_')))).toEqual({
      http_request_duration_seconds: 'histogram',
      http_requests_in_flight: 'gauge',
      stripe_events_processed_total: 'counter',
      webhook_deliveries_total: 'counter',
      cache_hits_total: 'counter',
      cache_misses_total: 'counter',
      rate_limit_refusals_total: 'counter',
      reconciliation_differences: 'gauge',
      redis_circuit_switches_total: 'counter',
      redis_shared_state: 'gauge',
      jobs_processed_total: 'counter',
      db_pool_connections: 'gauge',
      db_reads_total: 'counter',
      jobs_waiting: 'gauge',
      jobs_oldest_waiting_seconds: 'gauge',
      backup_last_success_timestamp_seconds: 'gauge',
      backup_last_verified_timestamp_seconds: 'gauge',
      live_tick_seconds: 'histogram',
    });
    const count = samples.find(
      (s) => s.name === 'http_request_duration_seconds_count' && s.labels.route === '/api/v1/fundraisers/:id' && s.labels.status === '404',
    );
    expect(count).toMatchObject({ labels: { method: 'GET' } });
    expect(count!.value).toBeGreaterThanOrEqual(1);
    expect(res.text).not.toContain(id);
    expect(samples.find((s) => s.name === 'jobs_waiting' && s.labels.task === task)?.value).toBe(1);
    expect(samples.find((s) => s.name === 'jobs_oldest_waiting_seconds' && s.labels.task === task)?.value).toBeGreaterThanOrEqual(0);
    expect(samples.filter((s) => s.name === 'db_pool_connections').map((s) => s.labels.state).sort()).toEqual(['idle', 'in_use', 'waiting']);
    expect(samples.find((s) => s.name === 'http_requests_in_flight')?.value).toBeGreaterThanOrEqual(1);
  });

  it('when METRICS_TOKEN is set, then the bearer token is required', async () => {
    const t = createTestApp({ env: { METRICS_TOKEN: 'metrics-token-0123456789' } });
    expect((await request(t.app).get('/metrics')).status).toBe(401);
    expect((await request(t.app).get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789')).status).toBe(401);
    const ok = await request(t.app).get('/metrics').set('Authorization', 'Bearer metrics-token-0123456789');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('# TYPE http_request_duration_seconds histogram');
  });

  it('when no token is set and the client is not on loopback, then it is refused', async () => {
    const res = { statusCode: 200, body: undefined as unknown, status(c: number) { this.statusCode = c; return this; }, json(b: unknown) { this.body = b; return this; }, setHeader() { return this; } };
    const req = { headers: {}, socket: { remoteAddress: '10.1.2.3' } } as unknown as Request;
    await metricsEndpoint(undefined)(req, res as unknown as Response, () => undefined);
    expect(res.statusCode).toBe(403);
  });

  it('when many sockets are open, then a scrape lists none of them one by one and counts open descriptors off the event loop', async () => {
    const t = createTestApp();
    // 300 idle connections to a local server: each is a handle the dropped families would list.
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const sockets = await Promise.all(
      Array.from({ length: 300 }, () => new Promise<net.Socket>((r) => {
        const s = net.connect(port, '127.0.0.1', () => r(s));
      })),
    );
    try {
      const { samples } = parse((await request(t.app).get('/metrics')).text);
      const names = new Set(samples.map((s) => s.name));
      expect(HEAVY_DEFAULT_FAMILIES.filter((n) => n !== 'process_open_fds' && names.has(n))).toEqual([]);
      if (process.platform === 'linux') expect(samples.find((s) => s.name === 'process_open_fds')?.value).toBeGreaterThanOrEqual(300);
    } finally {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('when a limiter refuses, then its refusals are counted by limiter name', async () => {
    const t = createTestApp();
    for (let i = 0; i < 12; i++) await request(t.app).post('/api/v1/idp/signin').send({});
    const { samples } = parse((await request(t.app).get('/metrics')).text);
    expect(samples.find((s) => s.name === 'rate_limit_refusals_total' && s.labels.limiter === 'auth')?.value).toBeGreaterThanOrEqual(2);
  });

  it('when Stripe events settle, a webhook is delivered and cached reads hit, then their counters move', async () => {
    const t = createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', READ_CACHE: 'true' } });
    const receiver = http.createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const owner = await createUser(t.ctx.db);
      const h = await authHeaders(t, owner);
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      expect((await request(t.app).post('/api/v1/webhook-endpoints').set(h).send({ url, events: ['donation.paid'] })).status).toBe(201);
      const f = await createFundraiser(t.ctx.db, owner.id);
      const gift = await startGift(t, f.id);
      const event = piSucceeded(gift);
      for (let i = 0; i < 2; i++) expect((await deliver(t, event)).status).toBe(200);
      await t.runJobs();
      await t.runJobs();
      expect(await t.ctx.readCache!.ready()).toBe(true);
      for (let i = 0; i < 2; i++) await request(t.app).get(`/api/v1/fundraisers/slug/${f.slug}`).expect(200);
      const { samples } = parse((await request(t.app).get('/metrics')).text);
      const value = (name: string, labels: Record<string, string>) =>
        samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;
      expect(value('stripe_events_processed_total', { type: 'payment_intent.succeeded', outcome: 'processed' })).toBeGreaterThanOrEqual(1);
      expect(value('stripe_events_processed_total', { type: 'payment_intent.succeeded', outcome: 'duplicate' })).toBeGreaterThanOrEqual(1);
      expect(value('webhook_deliveries_total', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
      expect(value('cache_misses_total', { cache: 'read' })).toBeGreaterThanOrEqual(1);
      expect(value('cache_hits_total', { cache: 'read' })).toBeGreaterThanOrEqual(1);
    } finally {
      await t.ctx.readCache?.close();
      await new Promise((r) => receiver.close(r));
    }
  });
});
