/**
 * Reconciliation bench: one UTC day of BENCH_RECONCILE_TXNS (default 100,000)
 * balance transactions at the sandbox processor (90% charges with their fee, 10% refunds), each
 * with its ledger group, plus three injected differences; then `reconcileDay` as the CLI and the
 * daily job run it: the processor's list streamed page by page into the kept table, the two
 * sides compared in SQL. Budget: under 2 minutes, memory flat (peak heap sampled every 100 ms).
 * Exit 1 over budget or when the injected differences are not exactly what is found.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:reconcile
 *   BENCH_RECONCILE_TXNS=20000 (a busy machine)   BENCH_RECONCILE_BUDGET_S=120
 */
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { createPaymentProcessor } from '../src/integrations/payments';
import { reconcileDay } from '../src/modules/reconciliation';
import { freshDatabase } from './db';
import { runBench } from './deadline';

const N = Number(process.env.BENCH_RECONCILE_TXNS ?? 100_000);
const BUDGET_S = Number(process.env.BENCH_RECONCILE_BUDGET_S ?? 120);
const DB_NAME = process.env.BENCH_DB ?? 'cf_bench_reconcile';
const DAY = '2026-01-15';
const log = (m: string) => process.stdout.write(`[reconcile] ${m}\n`);
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

async function main() {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error('DATABASE_URL (a Postgres server) is required');
  const url = await freshDatabase(server, DB_NAME);
  const config = parseConfig({ DATABASE_URL: url, NODE_ENV: 'production', LOG_LEVEL: 'warn', SANDBOX_WEBHOOK_URL: 'off' });
  const handle = await connectDatabase(config, { migrate: true, statementTimeoutMs: 0 });
  const db = handle.db;
  const t0 = Date.now();
  // The processor's side: the sandbox's balance-transactions record, spread over the day.
  await db.raw(
    `insert into sandbox_objects (id, kind, data, created_at)
     select 'txn_b_' || i, 'balance_transaction',
            jsonb_build_object('id', 'txn_b_' || i, 'object', 'balance_transaction',
              'type', case when i % 10 = 0 then 'refund' else 'charge' end,
              'amount', case when i % 10 = 0 then -500 else 1000 + i % 977 end,
              'fee', case when i % 10 = 0 then 0 else 59 end,
              'net', case when i % 10 = 0 then -500 else 1000 + i % 977 - 59 end,
              'currency', 'usd',
              'source', jsonb_build_object('id', 'ch_b_' || i, 'object', case when i % 10 = 0 then 'refund' else 'charge' end, 'payment_intent', 'pi_b_' || i)),
            ?::timestamptz + make_interval(secs => i * 86399.0 / ?)
       from generate_series(1, ?) i`,
    [DAY, N, N],
  );
  // The ledger's side: one balanced group per movement, naming its PaymentIntent; three differences.
  await db.raw(
    `insert into ledger_entries (group_id, account, amount_cents, currency, kind, processor_ref, processor_move, created_at)
     select g, a.account, a.sign * amt, 'usd', kind, 'pi_b_' || i, move, ?::timestamptz + make_interval(secs => i * 86399.0 / ?)
       from (select i, md5('bench-' || i)::uuid as g,
                    case when i % 10 = 0 then -500 else 1000 + i % 977 - 59 + case when i = 7 then 1 else 0 end end as amt,
                    case when i % 10 = 0 then 'refund' else 'donation' end as kind,
                    case when i % 10 = 0 then 'refund' else 'charge' end as move
               from generate_series(1, ?) i where i <> 5) s
      cross join (values ('asset:processor_balance', 1), ('revenue:tips', -1)) as a(account, sign)`,
    [DAY, N, N],
  );
  await db.raw(
    `insert into ledger_entries (group_id, account, amount_cents, currency, kind, processor_ref, processor_move, created_at)
     values (md5('bench-ghost')::uuid, 'asset:processor_balance', 777, 'usd', 'donation', 'pi_b_ghost', 'charge', ?::timestamptz + interval '1 hour'),
            (md5('bench-ghost')::uuid, 'revenue:tips', -777, 'usd', 'donation', 'pi_b_ghost', 'charge', ?::timestamptz + interval '1 hour')`,
    [DAY, DAY],
  );
  await db.raw('analyze sandbox_objects; analyze ledger_entries');
  log(`seeded ${N} balance transactions and ${N} ledger groups for ${DAY} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const payments = createPaymentProcessor(config, db);
  global.gc?.();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 100);
  const heapAt: number[] = [];
  const t1 = Date.now();
  const run = await reconcileDay({ db, payments }, DAY, (n) => {
    // What stays live after a collection (npm run bench:reconcile exposes gc): flat when nothing of the day is kept.
    if (n % 20_000 === 0 || n === N) {
      global.gc?.();
      heapAt.push(process.memoryUsage().heapUsed);
    }
  });
  const seconds = (Date.now() - t1) / 1000;
  clearInterval(sampler);

  const kinds = run.differences.map((d) => `${d.kind}:${d.ref}`).sort();
  log(`status ${run.status}: ${run.checked_processor} balance transactions, ${run.checked_ledger} ledger groups, ${run.differences.length} differences (${kinds.join(', ')})`);
  log(`took ${seconds.toFixed(1)} s (budget ${BUDGET_S} s)`);
  log(`heap: ${mb(base.heapUsed)} MB before, peak ${mb(peakHeap)} MB (garbage included); live after gc every 20,000 listed: ${heapAt.map(mb).join(', ')} MB; RSS peak ${mb(peakRss)} MB`);
  const want = ['amount_differs:pi_b_7', 'missing_at_processor:pi_b_ghost', 'missing_in_ledger:pi_b_5'];
  await handle.close();
  const ok = seconds < BUDGET_S && JSON.stringify(kinds) === JSON.stringify(want);
  if (!ok) log(`FAILED: ${seconds >= BUDGET_S ? 'over budget' : `expected ${want.join(', ')}`}`);
  process.exit(ok ? 0 : 1);
}

// The whole run (a fresh database, seeding, the reconciliation) keeps a stated budget too; the
// reconciliation's own 2-minute target is checked inside.
void runBench('reconcile', 600, () => main());
