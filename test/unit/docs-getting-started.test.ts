import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { freePort } from '../../src/infra/free-port';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { ROOT, codeBlocks } from '../helpers/markdown';
import { outputOf, type CliResult } from '../helpers/processes';

/**
 * The getting-started tour as a newcomer runs it: its `sh` blocks and its `http` requests, in the
 * page's order, in one bash, against a started server on a free port (written in place of
 * localhost:3000) with the sandbox processor delivering to it over HTTP. The page's first block,
 * `npm ci && npm start`, is what this server stands in for. The tour must end with a paid gift
 * and its receipt.
 */
const PAGE = 'docs/getting-started/README.md';
const START = 'npm ci && npm start';

/** An `http` block as a curl that fails the script on a 4xx or 5xx. */
function curlOf(block: string, base: string): string {
  const [head, ...rest] = block.replace(/\r/g, '').split('\n');
  const m = /^([A-Z]+)\s+(\S+)(?:\s+HTTP\/[\d.]+)?$/.exec(head!.trim());
  if (!m) throw new Error(`${PAGE}: an http block must start with "METHOD /path HTTP/1.1", not "${head}"`);
  const blank = rest.findIndex((l) => l.trim() === '');
  const headers = (blank < 0 ? rest : rest.slice(0, blank)).filter((l) => l.trim() !== '' && !/^host:/i.test(l));
  const body = blank < 0 ? '' : rest.slice(blank + 1).join('\n').trim();
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return ['curl -sS -f -o /dev/null -X', m[1], q(base + m[2]), ...headers.map((h) => `-H ${q(h.trim())}`), ...(body ? ['--data-raw', q(body)] : [])].join(' ');
}

function tourScript(base: string): string {
  const blocks = codeBlocks(fs.readFileSync(path.join(ROOT, PAGE), 'utf8')).filter((b) => b.lang === 'sh' || b.lang === 'http');
  if (blocks[0]?.body.trim() !== START) throw new Error(`${PAGE}: the tour must open with \`${START}\``);
  const host = base.replace(/^http:\/\//, '');
  const steps = blocks.slice(1).map((b) =>
    b.lang === 'http' ? curlOf(b.body, base) : b.body.replace(/http:\/\/localhost:3000/g, base).replace(/localhost:3000/g, host),
  );
  return ['set -euo pipefail', ...steps].join('\n');
}

function bash(script: string): Promise<CliResult> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent' };
  // `npm run admin` in the tour acts on this file's database, as it would on npm start's.
  if (process.env.TEST_DATABASE_URL) env.DATABASE_URL = process.env.TEST_DATABASE_URL;
  if (process.env.TEST_DIRECT_DATABASE_URL) env.DATABASE_DIRECT_URL = process.env.TEST_DIRECT_DATABASE_URL;
  return outputOf(spawn('bash', ['-c', script], { cwd: ROOT, env }));
}

const jsonLines = (out: string) =>
  out.split('\n').flatMap((l) => {
    try {
      return [JSON.parse(l) as { data?: Record<string, unknown> }];
    } catch {
      return [];
    }
  });

let t: TestApp;
let server: Server;
let base = '';

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = createTestApp({ env: { PORT: String(port), PUBLIC_URL: base, SANDBOX_WEBHOOK_URL: `${base}/api/v1/webhooks/stripe` } });
  server = t.app.listen(port, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await closeDb();
});

describe('the getting-started tour', () => {
  test('when its shell and HTTP blocks run as written, then it ends with a paid sandbox gift and its receipt', async () => {
    const r = await bash(tourScript(base));
    if (r.code !== 0) throw new Error(`the tour stopped (exit ${r.code}):\n${r.stderr}\n--- stdout ---\n${r.stdout}`);
    const answers = jsonLines(r.stdout);
    const receipt = answers.find((a) => a.data && 'receipt_id' in a.data && 'paid_at' in a.data && 'donor_name' in a.data);
    expect(receipt?.data).toMatchObject({ amount_cents: 2500, receipt_id: expect.any(String), donation_id: expect.any(String) });
    const gift = await testDb()('donations').where({ id: receipt!.data!.donation_id as string }).first();
    expect(gift).toMatchObject({ status: 'paid', amount_cents: 2500 });
    expect(answers.some((a) => a.data?.status === 'pending')).toBe(true);
  }, 300_000);
});
