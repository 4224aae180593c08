/**
 * What a settlement costs against a bare baseline: a node:http + pg server (no Express, no knex)
 * that verifies the Stripe signature with the `stripe` package, parses the event and runs the
 * statements the service ran for one `payment_intent.succeeded` settlement, in one transaction.
 * The statements are captured from the service itself at the start of the run (settle-capture.cjs
 * preloaded into the API process records what pg sends while one gift settles), then replayed
 * per event with that event's values: the gift's ids, amounts, donor and receipt from the gift row
 * the first statement reads, the campaign holder from the counters' read, a fresh id for every id
 * the service generated (ledger group, outbox row), the time now for a timestamp.
 *
 * Both serve the same load side by side in alternating rounds: signed `payment_intent.succeeded`
 * events for pending gifts spread over campaigns, 16 in flight. The figures: the service's events/s
 * as a ratio to the baseline's and API CPU per settlement of each (/proc of the server process).
 * After every round the counters, the distinct donors and check-ledger are checked.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/settle-baseline.ts
 *   SETTLE_BASE_GIFTS=400 SETTLE_BASE_ROUNDS=3 SETTLE_BASE_PROFILE=/tmp/api.cpuprofile (CPU profiles of each server over its counted rounds: .service.1, .baseline.1, ...)
 *
 * Writes bench/results/settle-baseline.md. About 3 minutes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import Stripe from 'stripe';
import { WEBHOOK_SECRET } from './money-api';
// The driver's modules (knex among them) load in the bare server too, but cost nothing per request.
import { main } from './settle-baseline-run';

interface Stmt { text: string; values: unknown[] }
/** The captured settlement: statements before, inside and after the transaction, and the values it was run for. */
interface Script { stmts: Stmt[]; known: Record<string, unknown> }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Substitutes one value of the captured settlement by this event's: known values by name, generated ids fresh. */
function substitute(v: unknown, map: Map<unknown, unknown>, fresh: Map<string, string>): unknown {
  if (map.has(v)) return map.get(v);
  if (typeof v === 'string') {
    if (UUID.test(v)) {
      if (!fresh.has(v)) fresh.set(v, randomUUID());
      return fresh.get(v);
    }
    if (ISO.test(v)) return new Date().toISOString();
    if (v.startsWith('{') || v.startsWith('[')) {
      try {
        return JSON.stringify(substitute(JSON.parse(v), map, fresh));
      } catch {
        return v;
      }
    }
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, map, fresh));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, map, fresh)]));
  return v;
}

/** The captured value -> this event's value, for every value the capture names. */
function valueMap(known: Record<string, unknown>, now: Record<string, unknown>): Map<unknown, unknown> {
  const m = new Map<unknown, unknown>();
  for (const [k, v] of Object.entries(known)) if (now[k] !== undefined) m.set(v, now[k]);
  for (const k of ['amount', 'tip']) if (typeof known[k] === 'number' && now[k] !== undefined) m.set(-(known[k] as number), -(now[k] as number));
  return m;
}

/** The bare server: `node --import tsx bench/settle-baseline.ts serve <script.json>`; prints port=N. */
async function serve(scriptFile: string): Promise<void> {
  const script = JSON.parse(fs.readFileSync(scriptFile, 'utf8')) as Script;
  const begin = script.stmts.findIndex((s) => /^begin/i.test(s.text));
  const commit = script.stmts.findIndex((s) => /^commit/i.test(s.text));
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const stripe = new Stripe('sk_test_bench_offline');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(Buffer.concat(chunks), String(req.headers['stripe-signature'] ?? ''), WEBHOOK_SECRET);
      } catch {
        return answer(400, '{"error":"Invalid signature"}');
      }
      if (event.type !== 'payment_intent.succeeded') return answer(200, '{"received":true}');
      const pi = event.data.object;
      const now: Record<string, unknown> = { event_id: event.id, pi: pi.id, charge: pi.latest_charge, donation_id: pi.metadata.donation_id, gross: pi.amount_received };
      settleOne(pool, script, begin, commit, now).then(
        (after) => {
          answer(200, '{"received":true}');
          after?.();
        },
        () => answer(503, '{"error":"unavailable"}'),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.stdout.write(`port=${(server.address() as { port: number }).port}\n`);
}

/** One settlement: the replayed statements on one connection; the statements after COMMIT run once answered. */
async function settleOne(pool: Pool, script: Script, begin: number, commit: number, now: Record<string, unknown>): Promise<(() => void) | undefined> {
  const c = await pool.connect();
  const fresh = new Map<string, string>();
  let map = valueMap(script.known, now);
  const run = async (s: Stmt) => (await c.query(s.text, substitute(s.values, map, fresh) as unknown[])).rows as Array<Record<string, unknown>>;
  let inTrx = false;
  try {
    for (let i = 0; i <= commit; i++) {
      const s = script.stmts[i]!;
      inTrx ||= i === begin;
      const rows = await run(s);
      // What the service reads it uses: the gift row (the first read that has its columns: the one before
      // the transaction reads only its state), the campaign's holder; a claimed or settled event stops here.
      if (i === 0 && !rows[0]) throw new Error('no gift');
      const d = rows[0];
      if (d && 'fundraiser_id' in d && now.fundraiser_id === undefined) {
        Object.assign(now, { fundraiser_id: d.fundraiser_id, email: d.donor_email, receipt_id: d.receipt_id, amount: d.amount_cents, tip: d.tip_cents, currency: d.currency });
        map = valueMap(script.known, now);
      }
      if (rows[0] && 'owner_user_id' in rows[0]) {
        now.owner_id = rows[0].owner_user_id;
        map = valueMap(script.known, now);
      }
      if (inTrx && /^(insert into "processed_webhook_events"|update "donations")/.test(s.text) && rows.length === 0) {
        await c.query('ROLLBACK');
        inTrx = false;
        c.release();
        return undefined;
      }
    }
  } catch (err) {
    if (inTrx) await c.query('ROLLBACK').catch(() => undefined);
    c.release();
    throw err;
  }
  return () => {
    (async () => {
      for (const s of script.stmts.slice(commit + 1)) await run(s);
    })().finally(() => c.release()).catch(() => undefined);
  };
}

/** Starts the bare server on `url` with `script`; its process and base URL. */
async function startBaseline(url: string, script: Script, env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string }> {
  const file = path.join(os.tmpdir(), `settle-baseline-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(script));
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, 'serve', file], { env: { ...process.env, ...env, DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /port=(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

if (process.argv[2] === 'serve') {
  serve(process.argv[3]!).catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  });
} else {
  main(startBaseline).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}

export type { Script, Stmt };
