import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, ROOT, until } from '../helpers/processes';
import { reaped } from '../helpers/reaped';

// The API process as deployed (`node --import tsx src/server.ts`, jobs on) with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP collector this test runs.

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}

/** OTLP JSON carries ids as hex (the JS exporter) or base64 (the protobuf JSON mapping): hex either way. */
const hex = (id: string) => (/^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));

let collector: http.Server;
let endpoint: string;
const spans: OtlpSpan[] = [];
let child: ChildProcess | null = null;

beforeAll(async () => {
  collector = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const doc = JSON.parse(body) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };
        for (const rs of doc.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ ...s, traceId: hex(s.traceId), spanId: hex(s.spanId) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', () => r()));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await new Promise((r) => collector.close(r));
});

describe('OpenTelemetry traces', () => {
  it('when a request carrying a traceparent queues a job, then the request and the job span share its trace id', async () => {
    const port = await freePort();
    child = reaped(spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: process.env.TEST_DATABASE_URL,
        DATABASE_DIRECT_URL: process.env.TEST_DIRECT_DATABASE_URL,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'silent',
        RUN_JOBS: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    }));
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const base = `http://127.0.0.1:${port}`;
    await until(`the server (${stderr})`, async () => (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) || undefined, 180_000);

    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`${base}/api/v1/idp/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: JSON.stringify({ email: `traced-${Date.now()}@example.com`, password: 'abcdef12' }),
    });
    expect(res.status).toBe(201);

    const job = await until('a job span in the request trace', async () => spans.find((s) => s.traceId === traceId && s.name.startsWith('job ')), 30_000, 100);
    const inTrace = spans.filter((s) => s.traceId === traceId);
    // The server span of the request (kind SERVER = 2), the job's consumer span (kind CONSUMER = 5) and its queries.
    expect(inTrace.some((s) => s.kind === 2 && /POST/.test(s.name))).toBe(true);
    expect(job.kind).toBe(5);
    expect(inTrace.some((s) => s.parentSpanId && hex(s.parentSpanId) === job.spanId)).toBe(true);
  }, 300_000); // a server process starts (tsx): slow with both cores busy
});
