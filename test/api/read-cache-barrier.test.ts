import { Client } from 'pg';
import { InvalidationListener, READ_CACHE_CHANNEL } from '../../src/infra/invalidation';
import { createLogger } from '../../src/infra/logger';

/**
 * A write request waits for the read cache to have taken in every change committed before it
 * (a barrier: a notification of its own, back through the same session). Concurrent writes share
 * barriers, so the session runs one query at a time (pg deprecates queueing queries on a client)
 * and a burst costs two round trips, while each caller still waits for one sent after its call.
 */
/** The listener's own session goes straight to the server, as the app's does (LISTEN needs a session, not a pooled one). */
const direct = () => process.env.TEST_DIRECT_DATABASE_URL ?? process.env.TEST_DATABASE_URL!;
/** Changes commit through the app's URL (a transaction-mode pooler in that CI pass). */
const url = () => process.env.TEST_DATABASE_URL!;
const seen: string[] = [];
let listener: InvalidationListener;

beforeAll(async () => {
  listener = new InvalidationListener(direct(), { onMessage: (id) => seen.push(id), onUp: () => undefined, onDown: () => undefined }, createLogger('silent'));
  listener.start();
  for (let i = 0; i < 100 && !listener.listening; i += 1) await new Promise((r) => setTimeout(r, 50));
  expect(listener.listening).toBe(true);
});
afterAll(() => listener.close());

describe('read-cache barriers', () => {
  it('when 50 writes ask at once, then all are confirmed, with at most two queries on the session and never two at a time', async () => {
    const client = (listener as unknown as { session: { client: { query: (...a: unknown[]) => Promise<unknown> } } }).session.client;
    const query = client.query.bind(client);
    let sent = 0;
    let running = 0;
    let overlap = 0;
    client.query = async (...args: unknown[]) => {
      sent += 1;
      running += 1;
      if (running > 1) overlap += 1;
      try {
        return await query(...args);
      } finally {
        running -= 1;
      }
    };
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const all = await Promise.all(Array.from({ length: 50 }, () => listener.barrier(5_000)));
      expect(all.every(Boolean)).toBe(true);
      expect([sent <= 2, overlap]).toEqual([true, 0]);
      expect(warnings.filter((w) => w.includes('already executing a query'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      client.query = query;
    }
  });

  it('when a change commits while a barrier is out, then a barrier asked after it resolves only once the change was taken in', async () => {
    const other = new Client({ connectionString: url() });
    await other.connect();
    try {
      const first = listener.barrier(5_000);
      await other.query('select pg_notify($1, $2)', [READ_CACHE_CHANNEL, 'change-after-first']);
      const second = listener.barrier(5_000).then((ok) => [ok, seen.includes('change-after-first')]);
      expect(await first).toBe(true);
      expect(await second).toEqual([true, true]);
    } finally {
      await other.end();
    }
  });
});
