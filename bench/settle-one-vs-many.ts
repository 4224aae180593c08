/**
 * One campaign against many: the same signed `payment_intent.succeeded` load, 16 in flight, once
 * with every gift to one campaign and once spread over 500, in alternating rounds against one API
 * process (`npm start`'s, money-api.ts) on a fresh database; the counters, the distinct donor
 * count and check-ledger are checked after every round. The figure: one campaign's events/s over
 * the spread rounds' (goal >= 0.9x; docs/decisions/0023-campaign-counters-in-shards.md).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/settle-one-vs-many.ts
 *   ONE_MANY_GIFTS=300 ONE_MANY_ROUNDS=2 ONE_MANY_CONCURRENCY=16
 *
 * Writes bench/results/settle-one-vs-many.md. About 5 minutes.
 */
import os from 'node:os';
import { parseConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { createUser } from '../test/helpers/auth';
import { createFundraiser } from '../test/helpers/fundraisers';
import { freshDatabase } from './db';
import { startApi, type Api } from './money-api';
import { writeLatestRun } from './results';
import { createGifts as makeGifts, exactness, model, postSigned, signedSucceeded, type Gift, type Want } from './settle-gifts';

const GIFTS = Number(process.env.ONE_MANY_GIFTS ?? 300);
const ROUNDS = Number(process.env.ONE_MANY_ROUNDS ?? 2);
const WIDTH = Number(process.env.ONE_MANY_CONCURRENCY ?? 16);
const SPREAD = 500;
const log = (m: string) => process.stdout.write(`[one-vs-many] ${m}\n`);
/** Every third gift has a tip. */
const shape = (i: number) => ({ amount: 500 + ((i * 7919) % 20_000), tip: i % 3 === 0 ? 100 : 0 });
const createGifts = (api: Api, campaigns: string[], tag: string) => makeGifts(api, campaigns, tag, { n: GIFTS, width: WIDTH, shape });

/** Signed up front (the signer's cost is not the server's); timed until the last event answers 200 (a 500 is sent again). */
async function deliver(api: Api, gifts: Gift[]): Promise<number> {
  const signed = gifts.map((g) => signedSucceeded(g, `evt_onemany_${g.id.replace(/-/g, '')}`));
  const t0 = performance.now();
  await postSigned(api.base, signed, WIDTH, (status) => status === 500);
  return (performance.now() - t0) / 1000;
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL is required (a Postgres server; the bench creates cf_bench_one_many on it)');
  const url = await freshDatabase(base, 'cf_bench_one_many');
  const api = await startApi(url);
  const handle = await connectDatabase(parseConfig({ ...process.env, DATABASE_URL: url, NODE_ENV: 'production', LOG_LEVEL: 'silent' }));
  const db = handle.db;
  try {
    const owner = await createUser(db);
    const campaigns: string[] = [];
    for (let i = 0; i <= SPREAD; i++) campaigns.push((await createFundraiser(db, owner.id, { goal_amount_cents: 1_000_000_000 })).id);
    const one = [campaigns[SPREAD]!];
    const many = campaigns.slice(0, SPREAD);
    const want: Want = new Map();
    const rows: Array<{ side: 'one' | 'many'; round: number; seconds: number; rate: number }> = [];
    log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; ${GIFTS} gifts a round, ${WIDTH} in flight, ${ROUNDS} rounds per side`);
    // Warm-up (not counted): the JIT, the pool and the caches.
    const warm = await createGifts(api, many, 'warm');
    await deliver(api, warm);
    for (const g of warm) model(want, g);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of ['one', 'many'] as const) {
        const gifts = await createGifts(api, side === 'one' ? one : many, `${side}${round}`);
        const seconds = await deliver(api, gifts);
        for (const g of gifts) model(want, g);
        rows.push({ side, round, seconds, rate: gifts.length / seconds });
        log(`round ${round} ${side}: ${gifts.length} events in ${seconds.toFixed(2)} s = ${(gifts.length / seconds).toFixed(1)}/s`);
        const wrong = await exactness(db, want);
        if (wrong.length) throw new Error(`not exact after round ${round} ${side}:\n${wrong.slice(0, 20).join('\n')}`);
      }
    }
    const rate = (side: 'one' | 'many') => {
      const r = rows.filter((x) => x.side === side);
      return r.length * GIFTS / r.reduce((s, x) => s + x.seconds, 0);
    };
    const ratio = rate('one') / rate('many');
    log(`one campaign ${rate('one').toFixed(1)}/s, 500 campaigns ${rate('many').toFixed(1)}/s: ${ratio.toFixed(2)}x; exact after every round`);
    const body = [
      `Signed \`payment_intent.succeeded\` events (stripe-node's test header), ${WIDTH} in flight, against one API process as \`npm start\` runs it (RUN_JOBS off) on a fresh database; ${GIFTS} gifts a round, every fourth donor giving twice; rounds alternate one campaign / ${SPREAD} campaigns after a warm-up round. After every round the counters (summed shards), the distinct donor count and check-ledger are checked against the model. 2 cores shared with other work: read the ratio.`,
      '',
      '| round | one campaign events/s | 500 campaigns events/s |',
      '|---|---|---|',
      ...Array.from({ length: ROUNDS }, (_, i) => `| ${i + 1} | ${rows.find((r) => r.side === 'one' && r.round === i + 1)!.rate.toFixed(1)} | ${rows.find((r) => r.side === 'many' && r.round === i + 1)!.rate.toFixed(1)} |`),
      `| all | ${rate('one').toFixed(1)} | ${rate('many').toFixed(1)} |`,
      '',
      `**One campaign: ${ratio.toFixed(2)}x the spread rate** (goal >= 0.9x). Exact after every round. Load average at start ${os.loadavg()[0]!.toFixed(1)}.`,
    ].join('\n');
    writeLatestRun('settle-one-vs-many', { title: 'One campaign against 500 (`npx tsx bench/settle-one-vs-many.ts`)', summary: `one ${rate('one').toFixed(0)}/s, 500 campaigns ${rate('many').toFixed(0)}/s, ${ratio.toFixed(2)}x, exact`, body });
  } finally {
    await handle.close();
    await api.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
