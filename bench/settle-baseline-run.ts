/** The driver of bench/settle-baseline.ts (kept apart so the bare server's process loads no knex). */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import type { Db } from '../src/db/knex';
import { createUser } from '../test/helpers/auth';
import { createFundraiser } from '../test/helpers/fundraisers';
import { freshDatabase } from './db';
import { startApi, type Api } from './money-api';
import { writeLatestRun } from './results';
import { cpuMsOf } from './served-app';
import type { Script, Stmt } from './settle-baseline';
import { createGifts as makeGifts, exactness, model, postSigned, signedSucceeded, type Gift, type Want } from './settle-gifts';

const GIFTS = Number(process.env.SETTLE_BASE_GIFTS ?? 400);
const ROUNDS = Number(process.env.SETTLE_BASE_ROUNDS ?? 3);
const WIDTH = 16;
const CAMPAIGNS = 200;
const log = (m: string) => process.stdout.write(`[settle-baseline] ${m}\n`);
/** Every gift has a tip. */
const shape = (i: number) => ({ amount: 1000 + ((i * 7919) % 20_000), tip: 50 + (i % 5) * 25 });
const createGifts = (api: Api, campaigns: string[], tag: string, n = GIFTS) => makeGifts(api, campaigns, tag, { n, width: WIDTH, shape });
const sign = (g: Gift, tag: string) => signedSucceeded(g, `evt_${tag}_${g.id.replace(/-/g, '')}`);

/** Signed up front; timed until the last event answers 200. Seconds and the server's CPU ms over them. */
async function deliver(base: string, pid: number | undefined, gifts: Gift[], tag: string): Promise<{ seconds: number; cpuMs: number }> {
  const signed = gifts.map((g) => sign(g, tag));
  const cpu0 = cpuMsOf(pid);
  const t0 = performance.now();
  await postSigned(base, signed, WIDTH, () => true);
  const seconds = (performance.now() - t0) / 1000;
  // The statements after COMMIT (the goal's recheck) finish just after the last answer.
  await new Promise((r) => setTimeout(r, 200));
  return { seconds, cpuMs: cpuMsOf(pid) - cpu0 };
}

/** One warm-up settlement, then one captured: the statements pg ran for it, in order, and the values it ran them with. */
async function capture(url: string, db: Db, campaign: string, ownerId: string): Promise<Script> {
  const file = path.join(os.tmpdir(), `settle-capture-${process.pid}.jsonl`);
  fs.rmSync(file, { force: true });
  const api = await startApi(url, { NODE_OPTIONS: `--require ${path.join(__dirname, 'settle-capture.cjs')}`, SETTLE_CAPTURE_FILE: file });
  try {
    const [warm, g] = await createGifts(api, [campaign], 'capture', 2);
    await deliver(api.base, api.child.pid, [warm!], 'capwarm');
    fs.writeFileSync(file, '');
    const s = sign(g!, 'cap');
    const res = await fetch(`${api.base}/api/v1/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': s.sig }, body: s.payload });
    if (res.status !== 200) throw new Error(`capture settlement answered ${res.status}`);
    await new Promise((r) => setTimeout(r, 500));
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Stmt & { client: number });
    fs.rmSync(file, { force: true });
    const clients = new Set(lines.map((l) => l.client));
    if (clients.size !== 1) log(`captured statements ran on ${clients.size} connections; replayed on one`);
    const row = await db('donations').where({ id: g!.id }).first();
    return {
      stmts: lines.map(({ text, values }) => ({ text, values })),
      known: { event_id: s.eventId, pi: g!.pi, charge: `ch_${g!.pi.replace(/^pi_/, '')}`, donation_id: g!.id, gross: g!.amount + g!.tip, fundraiser_id: campaign, email: g!.email, receipt_id: row.receipt_id, amount: g!.amount, tip: g!.tip, owner_id: ownerId },
    };
  } finally {
    await api.stop();
  }
}

export async function main(startBaseline: (url: string, s: Script, env?: Record<string, string>) => Promise<{ child: ChildProcess; base: string }>): Promise<void> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error('DATABASE_URL is required (the bench creates cf_bench_settle_baseline on it)');
  const url = await freshDatabase(baseUrl, 'cf_bench_settle_baseline');
  const handle = await connectDatabase(parseConfig({ ...process.env, DATABASE_URL: url, NODE_ENV: 'production', LOG_LEVEL: 'silent' }));
  const db = handle.db;
  const profile = process.env.SETTLE_BASE_PROFILE;
  let api: Api | undefined;
  let bare: { child: ChildProcess; base: string } | undefined;
  try {
    // The schema comes with the first API start (capture's).
    const captureApi = await startApi(url);
    await captureApi.stop();
    const owner = await createUser(db);
    const campaigns: string[] = [];
    for (let i = 0; i <= CAMPAIGNS; i++) campaigns.push((await createFundraiser(db, owner.id, { goal_amount_cents: 1_000_000_000 })).id);
    const script = await capture(url, db, campaigns[CAMPAIGNS]!, owner.id);
    log(`captured ${script.stmts.length} statements:\n${script.stmts.map((s) => `  ${s.text.replace(/\s+/g, ' ').slice(0, 110)}`).join('\n')}`);
    const spread = campaigns.slice(0, CAMPAIGNS);
    const profiled = (side: string): Record<string, string> => (profile ? { NODE_OPTIONS: `--require ${path.join(__dirname, 'settle-capture.cjs')}`, SETTLE_CPU_PROFILE: `${profile}.${side}` } : {});
    api = await startApi(url, profiled('service'));
    bare = await startBaseline(url, script, profiled('baseline'));
    const want: Want = new Map();
    const sides = { service: { base: api.base, pid: api.child.pid }, baseline: { base: bare.base, pid: bare.child.pid } };
    const rows: Array<{ side: keyof typeof sides; round: number; seconds: number; cpuMs: number }> = [];
    log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; ${GIFTS} gifts a round over ${CAMPAIGNS} campaigns, ${WIDTH} in flight, ${ROUNDS} rounds per side`);
    for (let round = 0; round <= ROUNDS; round++) {
      for (const side of ['service', 'baseline'] as const) {
        const gifts = await createGifts(api, spread, `${side}${round}`);
        const profiling = profile && round > 0;
        const child = side === 'service' ? api.child : bare.child;
        if (profiling) child.kill('SIGUSR2');
        const r = await deliver(sides[side].base, sides[side].pid, gifts, `${side}${round}`);
        if (profiling) child.kill('SIGUSR2');
        for (const g of gifts) model(want, g);
        // Round 0 warms both (JIT, pools) and is not counted.
        if (round > 0) rows.push({ side, round, ...r });
        log(`round ${round}${round ? '' : ' (warm-up)'} ${side}: ${gifts.length} events in ${r.seconds.toFixed(2)} s = ${(gifts.length / r.seconds).toFixed(1)}/s, API CPU ${((r.cpuMs * 1000) / gifts.length).toFixed(0)} us/event`);
        const wrong = await exactness(db, want);
        if (wrong.length) throw new Error(`not exact after round ${round} ${side}:\n${wrong.slice(0, 20).join('\n')}`);
      }
    }
    const total = (side: keyof typeof sides) => {
      const r = rows.filter((x) => x.side === side);
      const seconds = r.reduce((s, x) => s + x.seconds, 0);
      return { rate: (r.length * GIFTS) / seconds, cpuUs: (r.reduce((s, x) => s + x.cpuMs, 0) * 1000) / (r.length * GIFTS) };
    };
    const svc = total('service');
    const base = total('baseline');
    const ratio = svc.rate / base.rate;
    log(`service ${svc.rate.toFixed(1)}/s (${svc.cpuUs.toFixed(0)} us CPU/event), baseline ${base.rate.toFixed(1)}/s (${base.cpuUs.toFixed(0)} us): ${ratio.toFixed(2)}x; exact after every round`);
    const body = [
      `Signed \`payment_intent.succeeded\` events (stripe-node's test header) for pending gifts spread over ${CAMPAIGNS} campaigns, ${WIDTH} in flight, ${GIFTS} a round; rounds alternate the API process (\`npm start\`'s, RUN_JOBS off) and the bare server (node:http + pg, the \`stripe\` package's signature check, the service's ${script.stmts.length} captured statements replayed in one transaction) after one warm-up round each. API CPU = user + system time of the server process over the round (/proc). After every round the counters (summed shards), the distinct donor count and check-ledger are checked. 2 cores shared with other work: read the ratio.`,
      '',
      '| round | service events/s | service CPU us/event | baseline events/s | baseline CPU us/event |',
      '|---|---|---|---|---|',
      ...Array.from({ length: ROUNDS }, (_, i) => {
        const s = rows.find((r) => r.side === 'service' && r.round === i + 1)!;
        const b = rows.find((r) => r.side === 'baseline' && r.round === i + 1)!;
        return `| ${i + 1} | ${(GIFTS / s.seconds).toFixed(1)} | ${((s.cpuMs * 1000) / GIFTS).toFixed(0)} | ${(GIFTS / b.seconds).toFixed(1)} | ${((b.cpuMs * 1000) / GIFTS).toFixed(0)} |`;
      }),
      `| all | ${svc.rate.toFixed(1)} | ${svc.cpuUs.toFixed(0)} | ${base.rate.toFixed(1)} | ${base.cpuUs.toFixed(0)} |`,
      '',
      `**Service: ${ratio.toFixed(2)}x the baseline's events/s** (goal >= 0.5x), **${svc.cpuUs.toFixed(0)} us API CPU per settlement** against the baseline's ${base.cpuUs.toFixed(0)} us. Exact after every round. Load average at start ${os.loadavg()[0]!.toFixed(1)}.`,
      '',
      'The statements (captured from the service at the start of the run):',
      '',
      ...script.stmts.map((s, i) => `${i + 1}. \`${s.text.replace(/\s+/g, ' ').slice(0, 140)}${s.text.length > 140 ? '...' : ''}\``),
    ].join('\n');
    if (!process.env.SETTLE_BASE_NO_WRITE) {
      writeLatestRun('settle-baseline', { title: 'Settlement against a bare baseline (`npx tsx bench/settle-baseline.ts`)', summary: `service ${svc.rate.toFixed(0)}/s at ${svc.cpuUs.toFixed(0)} us CPU, baseline ${base.rate.toFixed(0)}/s at ${base.cpuUs.toFixed(0)} us, ${ratio.toFixed(2)}x, exact`, body });
    }
  } finally {
    bare?.child.kill('SIGTERM');
    await api?.stop();
    await handle.close();
  }
}
