import type { AddressInfo, Server } from 'node:net';
import { Client } from 'pg';
import pino from 'pino';
import request from 'supertest';
import type { Config } from '../../src/config';
import type { AppContext } from '../../src/context';
import { createContext } from '../../src/create-context';
import { connectDatabase, type DbHandle } from '../../src/db/connect';
import { registerJobs } from '../../src/jobs';
import { buildContractApp, closeDb, testConfig, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { pgbouncerMissing, startPgBouncer, type PgBouncer } from '../helpers/pgbouncer';
import { until } from '../helpers/processes';

/**
 * The service through a transaction-mode pooler (docs/decisions/0014-transaction-mode-pooler.md): DATABASE_URL is Debian's
 * PgBouncer 1.18 in transaction mode with 3 server connections and its stock
 * `ignore_startup_parameters` (extra_float_digits only), DATABASE_DIRECT_URL the server itself.
 * The app is built as `npm start` builds it (connectDatabase, createContext, the job runner).
 */
const missing = pgbouncerMissing();
if (missing) console.warn(missing);
const suite = missing ? describe.skip : describe;

// The test server itself (under TEST_PGBOUNCER=1 TEST_DATABASE_URL is already a pooler).
const direct = process.env.TEST_DIRECT_DATABASE_URL ?? process.env.TEST_DATABASE_URL!;
const api = '/api/v1';
let bouncer: PgBouncer;
let handle: DbHandle;
let ctx: AppContext;
let config: Config;
let server: Server;
let origin = '';
const logged: Array<{ level: number; msg: string; err?: { message?: string } }> = [];
const rejections: unknown[] = [];
const onRejection = (err: unknown) => rejections.push(err);
let campaign: FundraiserRow;
let ip = 0;
// Each poll its own client address: the polling must never meet a rate limit.
const guestRead = () => request(server).get(`${api}/fundraisers/slug/${campaign.slug}`).set('X-Forwarded-For', `10.9.${(ip >> 8) & 255}.${ip++ & 255}`);

suite('through PgBouncer in transaction mode', () => {
  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    bouncer = await startPgBouncer(direct, { poolSize: 3 });
    config = testConfig({
      DATABASE_URL: bouncer.pooled(direct),
      DATABASE_DIRECT_URL: direct,
      READ_CACHE: 'true',
      DB_STATEMENT_TIMEOUT_MS: '1000',
      SEARCH_STATEMENT_TIMEOUT_MS: '300',
      JOBS_CONCURRENCY: '2',
      LOG_LEVEL: 'warn',
    });
    handle = await connectDatabase(config);
    const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    ctx = createContext({ config, db: handle.db, log, redis: null });
    registerJobs(ctx);
    server = buildContractApp(ctx).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    config.SANDBOX_WEBHOOK_URL = `${origin}/api/v1/webhooks/stripe`;
    ctx.jobs.start();
    expect(await ctx.readCache!.ready()).toBe(true);
    const owner = await createUser(testDb(), { name: 'Pooled Owner' });
    campaign = await createFundraiser(testDb(), owner.id, { title: 'Pooled wells', goal_amount_cents: 100_000 });
  }, 240_000);

  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await ctx?.jobs.stop();
    await ctx?.readCache?.close();
    await handle?.close();
    await bouncer?.stop();
    await closeDb();
    process.off('unhandledRejection', onRejection);
  });

  test('when the app runs on a pooled DATABASE_URL, then /readyz and guest reads answer 200 (no startup parameter refused)', async () => {
    expect(handle.pooled).toBe(true);
    await request(server).get('/readyz').expect(200);
    const read = await request(server).get(`${api}/fundraisers/slug/${campaign.slug}`).expect(200);
    expect(read.body.data.title).toBe('Pooled wells');
    await request(server).get(`${api}/fundraisers`).query({ limit: 5 }).expect(200);
  });

  test('when a guest pays a gift through the sandbox checkout, then it settles, the cached guest read shows it within 1 s, and the receipt job sends its mail', async () => {
    // Fill the read cache first: the settlement must invalidate it through the direct LISTEN.
    await guestRead().expect(200);
    const before = ctx.readCache!.counts.hit;
    const cached = await guestRead().expect(200);
    expect(ctx.readCache!.counts.hit).toBe(before + 1);
    expect(cached.body.data.total_raised_cents).toBe(0);

    const started = await request(server)
      .post(`${api}/donations`)
      .send({ fundraiser_id: campaign.id, amount_cents: 2500, donor_email: 'pooled-guest@example.test', donor_name: 'A Guest' })
      .expect(201);
    const page = await request(server).get(new URL(started.body.data.url).pathname).expect(200);
    const action = /<form method="post" action="([^"]+\/complete)"/.exec(page.text)?.[1];
    expect(action).toBeDefined();
    const paidAt = Date.now();
    await request(server).post(new URL(action!, origin).pathname).set('origin', origin).type('form').send('').expect(303);

    const settled = await until('the gift settled', async () => {
      const d = await testDb()('donations').where({ id: started.body.data.donation_id }).first();
      return d?.status === 'paid' ? Date.now() : undefined;
    }, 20_000, 20);
    await until('the cached guest read to show the gift', async () => {
      const r = await guestRead();
      return r.body.data.total_raised_cents === 2500;
    }, 20_000, 10);
    const visibleAfter = Date.now() - settled;
    expect(visibleAfter).toBeLessThan(1_000);

    // The receipt is a background job: the runner (its pool direct) takes it without anyone draining.
    const mail = await until('the receipt mail', async () => testDb()('mail_outbox').where({ to: 'pooled-guest@example.test', template: 'donation_receipt' }).first(), 20_000, 50);
    expect(mail).toBeDefined();
    expect(Date.now() - paidAt).toBeLessThan(20_000);
  }, 240_000);

  test('when a search runs past SEARCH_STATEMENT_TIMEOUT_MS through the pooler, then Postgres cancels it: 503 SEARCH_TIMEOUT', async () => {
    // An exclusive lock on a table every list query joins makes the search wait inside Postgres.
    const lock = new Client({ connectionString: direct });
    await lock.connect();
    let res: request.Response;
    try {
      await lock.query('begin');
      await lock.query('lock table fundraiser_translations in access exclusive mode');
      res = await request(server).get(`${api}/fundraisers`).query({ q: 'wells' }).set('X-Forwarded-For', '10.8.0.1');
    } finally {
      await lock.query('rollback');
      await lock.end();
    }
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('SEARCH_TIMEOUT');
  });

  test('when a statement runs past DB_STATEMENT_TIMEOUT_MS, alone or in a transaction, then Postgres cancels it (57014), and no server connection keeps a timeout for other clients', async () => {
    await expect(handle.db.raw('select pg_sleep(5)')).rejects.toMatchObject({ code: '57014' });
    await expect(handle.db.transaction((trx) => trx.raw('select pg_sleep(5)'))).rejects.toMatchObject({ code: '57014' });
    // The limit was SET LOCAL: a plain client through the same pooler sees the server's default.
    const shown = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const c = new Client({ connectionString: bouncer.pooled(direct) });
      await c.connect();
      shown.add((await c.query('show statement_timeout')).rows[0].statement_timeout);
      await c.end();
    }
    expect([...shown]).toEqual(['0']);
    // The pool is fine afterwards.
    expect((await handle.db.raw('select 1 as one')).rows[0].one).toBe(1);
  });

  test('when all of this ran, then nothing was an unhandled rejection and no prepared-statement error was logged', () => {
    expect(rejections).toEqual([]);
    const bad = logged.filter((l) => /prepared statement|unsupported startup parameter/i.test(`${l.msg} ${l.err?.message ?? ''}`));
    expect(bad).toEqual([]);
  });
});
