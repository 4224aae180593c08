import { startBenchServer } from '../../bench/app-server';
import { closeDb, testConfig, testDb } from '../helpers/app';
import { until } from '../helpers/processes';

/**
 * `npm run bench` finished its work, then sat idle for ever on two idle
 * connections: each in-process server's read cache LISTENs on a connection of its own, outside
 * the pool, which nothing closed. Closing a bench server must end that connection too.
 */
const db = testDb();
afterAll(closeDb);

const listeners = async () =>
  Number((await db.raw(`select count(*)::int n from pg_stat_activity
    where datname = current_database() and query ilike 'listen read_cache%' and pid <> pg_backend_pid()`)).rows[0].n);

test('when a bench server whose read cache listens is closed then its LISTEN connection is gone', async () => {
  const before = await listeners();
  const s = await startBenchServer(testConfig({ READ_CACHE: 'true' }), db);
  const res = await fetch(`${s.base}/fundraisers`);
  await res.arrayBuffer();
  expect(await s.ctx.readCache!.ready()).toBe(true);
  await until('the read cache LISTEN connection', async () => (await listeners()) === before + 1, 20_000);
  await s.close();
  await until('the LISTEN connection to end', async () => (await listeners()) === before, 20_000);
}, 240_000);
