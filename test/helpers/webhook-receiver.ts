import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { TestApp } from './app';
import { authHeaders, createUser } from './auth';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * A local webhook receiver on 127.0.0.1 for the file's tests (the app runs with
 * WEBHOOK_ALLOW_PRIVATE=true): `/ok...` answers 204, `/fail...` 500, `/flaky...` 500 once then
 * 200, `/hang...` never answers; anything else 200. Every request is recorded.
 */
export function webhookReceiver() {
  const received: Received[] = [];
  let flakyFailures = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers as Record<string, string>, body, at: Date.now() });
      if (path.startsWith('/hang')) return;
      if (path.startsWith('/fail')) return void res.writeHead(500).end('nope');
      if (path.startsWith('/flaky') && flakyFailures++ === 0) return void res.writeHead(500).end('later');
      res.writeHead(path.startsWith('/ok') ? 204 : 200).end();
    });
  });
  let base = '';
  beforeAll(async () => {
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return {
    base: () => base,
    /** The requests received on one path, in order. */
    at: (path: string) => received.filter((r) => r.path === path),
    /** A fresh path of this kind (`ok`, `flaky`, ...), so tests never see each other's deliveries. */
    path: (kind: string) => `/${kind}-${Math.random().toString(36).slice(2, 10)}`,
    resetFlaky: () => {
      flakyFailures = 0;
    },
  };
}

/** Signed-in callers and the endpoint routes, on `t` unless another app is named. */
export function webhookApi(t: TestApp) {
  const signedIn = async (app = t) => {
    const u = await createUser(app.ctx.db);
    return { u, h: await authHeaders(app, u) };
  };
  const createEndpoint = (h: Record<string, string>, body: Record<string, unknown>, app = t) => request(app.app).post('/api/v1/webhook-endpoints').set(h).send(body);
  const endpointFor = async (h: Record<string, string>, url: string, events: string[] = ['*']) => {
    const r = await createEndpoint(h, { url, events });
    if (r.status !== 201) throw new Error(`creation answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body.data as { id: string; secret: string };
  };
  const deliveries = (h: Record<string, string>, id: string, q = '') => request(t.app).get(`/api/v1/webhook-endpoints/${id}/deliveries${q}`).set(h);
  const ping = (h: Record<string, string>, id: string) => request(t.app).post(`/api/v1/webhook-endpoints/${id}/test`).set(h);
  return { signedIn, createEndpoint, endpointFor, deliveries, ping };
}
