/**
 * Settlement under load, measured (moved out of the test suite, which runs a
 * small instance of the same test). Runs test/api/donations-settlement-load.test.ts at full size
 * (300 gifts, 1,000 signed events, 30% duplicates, refunds and disputes, 16 at a time, in-process
 * app on a fresh test database) and reports its events/s; the test's exactness checks still apply.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:settle-load
 *   SETTLE_LOAD_GIFTS=300 BENCH_BUDGET_S=1200
 *
 * Budget: 20 minutes (548 s at load average 12-16 on 2 shared cores). Writes bench/results/settle-load.md.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { budgetSeconds, runBench, type BenchRun } from './deadline';
import { RESULTS_DIR } from './results';

const GIFTS = Number(process.env.SETTLE_LOAD_GIFTS ?? 300);
const BUDGET_S = 1200;
const root = path.resolve(__dirname, '..');
const log = (m: string) => process.stdout.write(`[settle-load] ${m}\n`);

async function main(run: BenchRun): Promise<void> {
  run.step(`running the settlement-load test with ${GIFTS} gifts (jest)`);
  const load = os.loadavg()[0]!;
  const out: string[] = [];
  const child = spawn(process.execPath, [path.join(root, 'node_modules/jest/bin/jest.js'), '--maxWorkers=1', '--runTestsByPath', 'test/api/donations-settlement-load.test.ts'], {
    cwd: root,
    env: { ...process.env, SETTLE_LOAD_GIFTS: String(GIFTS), SETTLE_LOAD_TIMEOUT_MS: String(budgetSeconds(BUDGET_S) * 1000) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The bench's own deadline must not leave jest behind.
  process.on('exit', () => child.kill('SIGKILL'));
  for (const s of [child.stdout, child.stderr]) s.on('data', (d: Buffer) => out.push(d.toString()));
  const code: number = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  const text = out.join('');
  const m = /settle load: (\d+) gifts, (\d+) events in (\d+) ms \((\d+) events\/s\)/.exec(text);
  if (code !== 0 || !m) throw new Error(`the settlement-load test failed (exit ${code}):\n${text.slice(-4000)}`);
  const [, gifts, events, ms, rate] = m;
  log(`${gifts} gifts, ${events} events in ${ms} ms: ${rate} events/s (load average ${load.toFixed(1)} at start); ledger, counters, events and mails exact`);
  writeSection({ gifts: gifts!, events: events!, ms: ms!, rate: rate!, load });
}

function writeSection(r: { gifts: string; events: string; ms: string; rate: string; load: number }): void {
  const file = path.join(RESULTS_DIR, 'settle-load.md');
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  // Every run is a row of its table, newest first: the table is the latest run and this bench's dated history.
  const rows = old.split('\n').filter((l) => l.startsWith('| 20'));
  rows.unshift(`| ${new Date().toISOString()} | ${r.gifts} | ${r.events} | ${(Number(r.ms) / 1000).toFixed(1)} | ${r.rate} | ${r.load.toFixed(1)} |`);
  const section = [
    '# Settlement under load (`npm run bench:settle-load`)',
    '',
    'test/api/donations-settlement-load.test.ts at full size: signed webhook events (30% duplicates, shuffled, refunds',
    'and disputes, some refunds ahead of their success) sent 16 at a time over HTTP to the in-process app on a fresh',
    `database; every run also checks the ledger, counters, events and mails exact. ${os.cpus().length} cores, shared machine.`,
    '',
    '| run | gifts | events | seconds | events/s | load avg at start |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  fs.writeFileSync(file, section);
  log('wrote bench/results/settle-load.md');
}

void runBench('settle-load', BUDGET_S, main);
