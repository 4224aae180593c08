import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import { closeDb, createTestApp, testConfig } from '../helpers/app';
import { freePort, ROOT, until } from '../helpers/processes';
import { workerMetricsApp } from '../../src/infra/worker-metrics';
import { reaped } from '../helpers/reaped';

// "Without METRICS_TOKEN, /metrics answers loopback clients only" through a real proxy hop: a
// reverse proxy on 127.0.0.1 in front of the API and of the worker's metrics port, adding the
// forwarding header a proxy adds for the client it serves.

afterAll(closeDb);

const TOKEN = 'metrics-token-0123456789';

interface Listening {
  url: string;
  close(): Promise<void>;
}

function listen(server: http.Server): Promise<Listening> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}

/**
 * A tiny forwarding proxy: every client of a test is on loopback, so the client address the
 * proxy "sees" is named by the test in `x-test-client`, and written as the proxy would write
 * it: appended to X-Forwarded-For (or, with `x-test-header: forwarded`, as RFC 7239 Forwarded).
 */
function forwarder(target: () => string): Promise<Listening> {
  return listen(
    http.createServer((req, res) => {
      const headers = { ...req.headers };
      const client = String(headers['x-test-client'] ?? req.socket.remoteAddress);
      const style = headers['x-test-header'];
      delete headers['x-test-client'];
      delete headers['x-test-header'];
      if (style === 'forwarded') headers.forwarded = `for=${client}`;
      else headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${String(headers['x-forwarded-for'])}, ${client}` : client;
      const up = new URL(req.url ?? '/', target());
      const out = http.request(up, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.writeHead(502).end());
      req.pipe(out);
    }),
  );
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/metrics`, { headers });
  return { status: res.status, text: await res.text() };
}

/** The two loopback-only surfaces, as their processes build them. */
const surfaces: Array<[string, (env: Record<string, string | undefined>) => Express]> = [
  ['the API', (env) => createTestApp({ env }).app],
  ['the worker metrics port', (env) => workerMetricsApp(testConfig(env))],
];

describe.each(surfaces)('GET /metrics on %s behind a proxy on loopback', (_name, build) => {
  /** Serves `build(env)` and a proxy in front of it for the duration of `fn`. */
  async function withProxy(env: Record<string, string | undefined>, fn: (direct: string, proxied: string) => Promise<void>) {
    const server = await listen(http.createServer(build(env)));
    const proxy = await forwarder(() => server.url);
    try {
      await fn(server.url, proxy.url);
    } finally {
      await proxy.close();
      await server.close();
    }
  }

  it('when TRUST_PROXY=loopback and no token, then a forwarded external client is refused and loopback clients are served', () =>
    withProxy({ TRUST_PROXY: 'loopback' }, async (direct, proxied) => {
      expect((await get(proxied, { 'x-test-client': '10.200.1.2' })).status).toBe(403);
      expect((await get(proxied, { 'x-test-client': '2001:db8::7' })).status).toBe(403);
      // A client's own X-Forwarded-For cannot make it loopback: the proxy appends the real one.
      expect((await get(proxied, { 'x-test-client': '10.200.1.2', 'x-forwarded-for': '127.0.0.1' })).status).toBe(403);
      const viaProxy = await get(proxied, { 'x-test-client': '127.0.0.1' });
      expect(viaProxy.status).toBe(200);
      expect(viaProxy.text).toContain('# TYPE process_cpu_seconds_total counter');
      expect((await get(direct)).status).toBe(200);
    }));

  it('when TRUST_PROXY is unset, then a proxy on loopback still cannot open it to an external client', () =>
    withProxy({ TRUST_PROXY: undefined }, async (direct, proxied) => {
      expect((await get(proxied, { 'x-test-client': '10.200.1.2' })).status).toBe(403);
      expect((await get(proxied, { 'x-test-client': '10.200.1.2', 'x-test-header': 'forwarded' })).status).toBe(403);
      expect((await get(proxied, { 'x-test-client': '127.0.0.1' })).status).toBe(200);
      expect((await get(direct)).status).toBe(200);
    }));

  it('when the proxy names the client in a Forwarded header Express does not read, then it is refused', () =>
    withProxy({ TRUST_PROXY: 'loopback' }, async (_direct, proxied) => {
      expect((await get(proxied, { 'x-test-client': '10.200.1.2', 'x-test-header': 'forwarded' })).status).toBe(403);
    }));

  it('when METRICS_TOKEN is set, then the token works through the proxy for any client and nothing works without it', () =>
    withProxy({ TRUST_PROXY: 'loopback', METRICS_TOKEN: TOKEN }, async (direct, proxied) => {
      const bearer = { authorization: `Bearer ${TOKEN}` };
      expect((await get(proxied, { 'x-test-client': '10.200.1.2', ...bearer })).status).toBe(200);
      expect((await get(proxied, { 'x-test-client': '127.0.0.1', ...bearer })).status).toBe(200);
      expect((await get(direct, bearer)).status).toBe(200);
      expect((await get(proxied, { 'x-test-client': '127.0.0.1' })).status).toBe(401);
      expect((await get(direct)).status).toBe(401);
    }));
});

describe('npm run worker with WORKER_METRICS_PORT behind a proxy on loopback', () => {
  let child: ChildProcess | null = null;
  let output = '';
  afterAll(async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child!.once('close', r));
    child.kill('SIGTERM');
    await exited;
  });

  it('when TRUST_PROXY=loopback and no token, then the worker process refuses a forwarded external client and serves loopback ones', async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-metrics-'));
    // The worker's entry (what `npm run worker` runs, from source) on the test file's database.
    child = reaped(spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['src/worker.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: process.env.TEST_DATABASE_URL,
        DATA_DIR: dataDir,
        STORAGE_DIR: path.join(dataDir, 'storage'),
        HOST: '127.0.0.1',
        WORKER_METRICS_PORT: String(port),
        TRUST_PROXY: 'loopback',
        LOG_LEVEL: 'warn',
      },
    }));
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const direct = `http://127.0.0.1:${port}`;
    // A first run compiles the sources through tsx: generous on a loaded machine.
    await until("the worker's metrics port", async () => (await get(direct)).status === 200, 90_000).catch((err: Error) => {
      throw new Error(`${err.message}; worker output: ${output.slice(-2000)}`);
    });
    const proxy = await forwarder(() => direct);
    try {
      expect((await get(proxy.url, { 'x-test-client': '10.200.1.2' })).status).toBe(403);
      const ok = await get(proxy.url, { 'x-test-client': '127.0.0.1' });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('db_pool_connections');
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
