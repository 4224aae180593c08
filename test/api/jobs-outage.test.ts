import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { closeDb, testDb } from '../helpers/app';
import { until } from '../helpers/processes';
import { createDb } from '../../src/db/knex';
import { enqueue, JobWorker } from '../../src/infra/jobs';
import { pendingJobs } from '../../src/jobs/admin';
import { createLogger } from '../../src/infra/logger';

// The worker reaches the test database through a TCP proxy this test can cut: the database
// "goes away" (every connection dropped, new ones refused) and comes back.
let up = true;
const sockets = new Set<net.Socket>();
// The direct server (under TEST_PGBOUNCER=1 TEST_DATABASE_URL is the pooler): the job engine's connections are direct.
const target = new URL(process.env.TEST_DIRECT_DATABASE_URL ?? process.env.TEST_DATABASE_URL!);
const proxy = net.createServer((client) => {
  if (!up) return client.destroy();
  const server = net.connect(Number(target.port || 5432), target.hostname);
  for (const s of [client, server]) {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  }
  client.pipe(server).pipe(client);
  client.on('close', () => server.destroy());
  server.on('close', () => client.destroy());
});
const cut = () => {
  up = false;
  for (const s of sockets) s.destroy();
};

afterAll(async () => {
  await new Promise((r) => proxy.close(r));
  await closeDb();
});

it('when the database goes away under a running worker, then it keeps retrying without crashing and runs the job once it is back', async () => {
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  const url = new URL(target);
  url.host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const db = createDb(url.toString(), { max: 2 });
  const task = `outage-${randomUUID()}`;
  const ran: unknown[] = [];
  const worker = new JobWorker(db, createLogger('silent'), { concurrency: 1, pollIntervalMs: 200 }).register(task, async (p) => void ran.push(p.n));
  try {
    worker.start();
    await enqueue(testDb(), task, { n: 1 });
    await until('the first job', async () => ran.length === 1, 20_000, 50);
    // Its completion committed too: a cut while graphile-worker is still recording it would drop
    // that statement's connection instead of testing a worker waiting for work.
    await until('the first job completed', async () => (await pendingJobs(testDb(), task)).length === 0, 20_000, 50);

    cut();
    await enqueue(testDb(), task, { n: 2 });
    await new Promise((r) => setTimeout(r, 2_000));
    expect(ran).toEqual([1]);

    up = true;
    await until('the job queued during the outage', async () => ran.length === 2, 30_000, 100);
    expect(ran).toEqual([1, 2]);
  } finally {
    await worker.stop();
    await db.destroy();
  }
}, 60_000);
