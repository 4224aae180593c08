import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { closeLiveStreams } from '../../src/modules/live';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { freePort, ROOT, until } from '../helpers/processes';
import { reaped } from '../helpers/reaped';
import { openSse, type SseEvent, type SseStream } from '../helpers/sse';
import { deliver } from '../helpers/stripe';
import { piSucceeded, sandboxSucceeded, startGift } from './donations-fixtures';

/**
 * GET /fundraisers/{id}/live: events and fields, batching, replay, closing, limits, graceful stop,
 * and delivery from another process (docs/integrators/live-stream.md).
 */
let t: TestApp;
let server: Server;
let base = '';
let ownerId: string;
/** Every write each stream's response got, with when: batching is checked on the server's side. */
const writes = new Map<ServerResponse, Array<{ at: number; text: string }>>();
const streams: SseStream[] = [];

async function listen(app: TestApp): Promise<{ server: Server; base: string }> {
  const s = app.app.listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  return { server: s, base: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  t = createTestApp();
  ({ server, base } = await listen(t));
  server.prependListener('request', (req, res: ServerResponse) => {
    if (!req.url?.endsWith('/live')) return;
    const log: Array<{ at: number; text: string }> = [];
    writes.set(res, log);
    // What reaches the connection (the stream writes a prebuilt chunk to the socket itself); each stream has its own connection.
    const socket = req.socket;
    const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      log.push({ at: Date.now(), text: String(chunk) });
      return write(chunk, ...rest);
    }) as typeof socket.write;
  });
  ownerId = (await createUser(testDb())).id;
});
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});
afterAll(async () => {
  await closeLiveStreams(t.ctx);
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await closeDb();
});

const live = (id: string, at = base) => `${at}/api/v1/fundraisers/${id}/live`;
async function watch(id: string, headers: Record<string, string> = {}, at = base): Promise<SseStream> {
  const s = await openSse(live(id, at), headers);
  streams.push(s);
  return s;
}
const named = (type: string) => (events: SseEvent[]) => events.filter((e) => e.event === type);
const donations = named('donation');
const progress = named('progress');

/** A gift settled as the processor settles it: create-intent, then a signed payment_intent.succeeded. */
async function settleGift(app: TestApp, fundraiserId: string, amount: number, extra: Record<string, unknown> = {}) {
  const g = await startGift(app, fundraiserId, amount, 0, extra);
  await sandboxSucceeded(app, g.payment_intent_id);
  expect((await deliver(app, piSucceeded(g))).status).toBe(200);
  return g;
}

describe('the stream', () => {
  test('when a guest opens it, then 200 text/event-stream, no-store, unbuffered, and progress at once; a settled gift then comes as a donation event and new progress', async () => {
    const f = await createFundraiser(testDb(), ownerId, { goal_amount_cents: 10_000 });
    const s = await watch(f.id);
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(s.headers['cache-control']).toBe('no-store');
    expect(s.headers['x-accel-buffering']).toBe('no');
    await s.until('progress', (e) => progress(e).length === 1);
    expect(s.events[0]).toEqual({
      event: 'progress',
      data: { total_raised_cents: 0, donation_count: 0, donor_count: 0, goal_amount_cents: 10_000, percentage_funded: 0, recurring_donor_count: 0 },
    });

    const g = await settleGift(t, f.id, 2_500);
    await s.until('the donation and its progress', (e) => donations(e).length === 1 && progress(e).some((p) => p.data.total_raised_cents === 2_500));
    const d = donations(s.events)[0]!;
    expect(d.data.id).toBe(g.donation_id);
    expect(d.id).toMatch(/^\d+$/);
    expect(progress(s.events).at(-1)!.data).toEqual(expect.objectContaining({ total_raised_cents: 2_500, donation_count: 1, donor_count: 1, percentage_funded: 25 }));
  });

  test('when gifts are settled, then each donation event is exactly the donor list\'s item for that gift, projected onto the event\'s fields (named and anonymous), and carries nothing else', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const s = await watch(f.id);
    await s.until('progress', (e) => progress(e).length === 1);
    const donor = await createUser(testDb(), { name: 'Ada Donor' } as never);
    const gifts = [
      await settleGift(t, f.id, 1_100, { donor_name: 'Ada Lovelace', donor_email: 'ada@example.test' }),
      await settleGift(t, f.id, 1_200, { donor_name: 'Hidden Person', donor_email: 'hidden@example.test', anonymous: true }),
    ];
    await createGift(testDb(), { fundraiserId: f.id, donorUserId: donor.id, donorName: 'Signed In', amount: 1_300 });
    await s.until('three donations', (e) => donations(e).length === 3);

    const list = (await request(t.app).get(`/api/v1/donations/recent?fundraiser_id=${f.id}&limit=50`).expect(200)).body.data as Array<Record<string, unknown>>;
    for (const ev of donations(s.events)) {
      const item = list.find((i) => i.id === ev.data.id)!;
      expect(item).toBeDefined();
      // The event has no field the donor list does not show, and each value is the list's.
      const projected = Object.fromEntries(Object.keys(ev.data).map((k) => [k, item[k]]));
      expect(Object.keys(ev.data).every((k) => k in item)).toBe(true);
      expect(ev.data).toEqual(projected);
      const text = JSON.stringify(ev.data);
      for (const secret of ['ada@example.test', 'hidden@example.test', 'Hidden Person', donor.id, donor.email]) expect(text).not.toContain(secret);
    }
    expect(donations(s.events).map((e) => e.data.donor_name)).toEqual(['Ada Lovelace', null, 'Signed In']);
    expect(gifts.map((g) => g.donation_id)).toEqual(donations(s.events).slice(0, 2).map((e) => e.data.id));
  });

  test('when gifts settle, then their cursors only grow, every write is at least 250 ms after the previous one, and gifts committed together go out in one write', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const s = await watch(f.id);
    await s.until('progress', (e) => progress(e).length === 1);
    for (let i = 0; i < 6; i++) await createGift(testDb(), { fundraiserId: f.id, amount: 100 + i });
    await s.until('six donations', (e) => donations(e).length === 6);
    // Ten gifts in one transaction: one commit, one notification burst, one tick.
    await testDb().transaction(async (trx) => {
      for (let i = 0; i < 10; i++) {
        await trx('donations').insert({
          fundraiser_id: f.id, donor_name: `Batch ${i}`, donor_email: `b${i}@example.test`, amount_cents: 200 + i, tip_cents: 0, currency: 'USD',
          status: 'paid', method: 'checkout', receipt_id: `rcpt_live_batch_${f.id}_${i}`, paid_at: new Date(),
        });
      }
    });
    await s.until('sixteen donations', (e) => donations(e).length === 16);
    const seqs = donations(s.events).map((e) => BigInt(e.id!));
    expect(seqs.every((v, i) => i === 0 || v > seqs[i - 1]!)).toBe(true);

    const log = [...writes.entries()].find(([, l]) => l.some((w) => w.text.includes('Batch 0')))![1];
    const batch = log.filter((w) => w.text.includes('Batch '));
    expect(batch).toHaveLength(1);
    expect(batch[0]!.text.match(/event: donation/g)).toHaveLength(10);
    const eventWrites = log.filter((w) => w.text.includes('event: ')).slice(1); // the first is the connect's own
    for (let i = 1; i < eventWrites.length; i++) expect(eventWrites[i]!.at - eventWrites[i - 1]!.at).toBeGreaterThanOrEqual(250);
  });

  test('when a viewer reconnects with Last-Event-ID, then the donations after it are replayed first: at most 100, none older than 10 minutes', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    for (let i = 0; i < 110; i++) await createGift(testDb(), { fundraiserId: f.id, amount: 1_000 + i });
    const journal = await testDb()('live_gifts').where({ fundraiser_id: f.id }).orderBy('seq').select('seq', 'donation_id');
    expect(journal).toHaveLength(110);

    const few = await watch(f.id, { 'Last-Event-ID': String(journal[106].seq) });
    await few.until('three replayed', (e) => donations(e).length === 3);
    expect(few.events[0]!.event).toBe('progress');
    expect(donations(few.events).map((e) => e.id)).toEqual(journal.slice(107).map((j) => String(j.seq)));

    const many = await watch(f.id, { 'Last-Event-ID': String(journal[0].seq) });
    await many.until('the newest 100', (e) => donations(e).length === 100);
    expect(donations(many.events).map((e) => e.id)).toEqual(journal.slice(10).map((j) => String(j.seq)));

    // Older than ten minutes: not replayed.
    await testDb()('live_gifts').whereIn('seq', journal.slice(0, 105).map((j) => j.seq)).update({ settled_at: new Date(Date.now() - 11 * 60_000) });
    const old = await watch(f.id, { 'Last-Event-ID': String(journal[0].seq) });
    await old.until('five recent replayed', (e) => donations(e).length === 5);
    await new Promise((r) => setTimeout(r, 600));
    expect(donations(old.events)).toHaveLength(5);

    const fresh = await watch(f.id);
    await fresh.until('progress', (e) => progress(e).length === 1);
    await new Promise((r) => setTimeout(r, 600));
    expect(donations(fresh.events)).toHaveLength(0);
  });

  test('when the campaign ends or stops being readable, then closed comes and the stream ends; an ended campaign says so at once; an unreadable one is 404 as its detail read', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const s = await watch(f.id);
    await s.until('progress', (e) => progress(e).length === 1);
    await testDb()('fundraisers').where({ id: f.id }).update({ status: 'ended' });
    await s.until('closed', (e) => e.some((x) => x.event === 'closed'));
    expect(s.events.at(-1)).toEqual({ event: 'closed', data: { reason: 'ended' } });
    await s.ended;

    const again = await watch(f.id);
    await again.ended;
    expect(again.events.map((e) => e.event)).toEqual(['progress', 'closed']);

    const g = await createFundraiser(testDb(), ownerId);
    const h = await watch(g.id);
    await h.until('progress', (e) => progress(e).length === 1);
    await testDb()('fundraisers').where({ id: g.id }).update({ visibility: 'private' });
    await h.until('closed', (e) => e.some((x) => x.event === 'closed'));
    expect(h.events.at(-1)!.data).toEqual({ reason: 'unavailable' });
    await h.ended;

    const draft = await createFundraiser(testDb(), ownerId, { status: 'draft' });
    const refused = await watch(draft.id);
    await refused.ended;
    expect(refused.status).toBe(404);
    expect((await request(t.app).get(`/api/v1/fundraisers/${draft.id}`)).status).toBe(404);
    expect(JSON.parse(refused.body)).toEqual(expect.objectContaining({ error: 'Not found', message: 'Fundraiser not found' }));
  });
});

describe('limits', () => {
  test('when one address opens a 21st stream, then 429 in the rate limiters\' shape; once one closes, another may open', async () => {
    const f = await createFundraiser(testDb(), ownerId);
    const open: SseStream[] = [];
    for (let i = 0; i < 20; i++) open.push(await watch(f.id));
    for (const s of open) expect(s.status).toBe(200);
    const over = await watch(f.id);
    await over.ended;
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBeDefined();
    expect(JSON.parse(over.body)).toEqual(expect.objectContaining({ error: expect.any(String), retryAfter: expect.any(Number) }));
    open[0]!.close();
    await until('the closed stream to be let go', async () => (await watch(f.id)).status === 200, 10_000, 50);
  });

  test('when a process holds LIVE_MAX_STREAMS streams, then the next answers 503 with Retry-After', async () => {
    const small = createTestApp({ env: { LIVE_MAX_STREAMS: '2' } });
    const { server: s2, base: b2 } = await listen(small);
    try {
      const f = await createFundraiser(testDb(), ownerId);
      expect((await watch(f.id, {}, b2)).status).toBe(200);
      expect((await watch(f.id, {}, b2)).status).toBe(200);
      const third = await watch(f.id, {}, b2);
      await third.ended;
      expect(third.status).toBe(503);
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      expect(JSON.parse(third.body)).toEqual(expect.objectContaining({ code: 'LIVE_STREAMS_FULL' }));
    } finally {
      await closeLiveStreams(small.ctx);
      s2.closeAllConnections();
      await new Promise((r) => s2.close(r));
    }
  });
});

describe('another process', () => {
  const dirs: string[] = [];
  let child: ChildProcess | null = null;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  test('when a gift is settled through this instance, then a viewer of another process on the same database gets it; on SIGTERM that process ends its streams first and exits 0 long before its shutdown budget', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-live-'));
    dirs.push(dir);
    const port = await freePort();
    child = reaped(spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH, HOME: process.env.HOME,
        DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_DIRECT_URL: process.env.TEST_DIRECT_DATABASE_URL,
        DATA_DIR: dir, STORAGE_DIR: path.join(dir, 'uploads'), HOST: '127.0.0.1', PORT: String(port),
        LOG_LEVEL: 'warn', READ_CACHE: 'false', RUN_JOBS: 'false', SHUTDOWN_DRAIN_MS: '200', SHUTDOWN_TIMEOUT_MS: '90000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    const other = `http://127.0.0.1:${port}`;
    await until('the other process to be ready', async () => (await fetch(`${other}/readyz`).catch(() => null))?.status === 200, 120_000, 200).catch((err) => {
      throw new Error(`${(err as Error).message}\n${out}`);
    });

    const f = await createFundraiser(testDb(), ownerId);
    const s = await watch(f.id, {}, other);
    await s.until('progress', (e) => progress(e).length === 1);
    const g = await settleGift(t, f.id, 4_200, { donor_name: 'Across Processes' });
    await s.until('the gift settled elsewhere', (e) => donations(e).some((d) => d.data.id === g.donation_id), 60_000);
    expect(donations(s.events)[0]!.data).toEqual(expect.objectContaining({ amount_cents: 4_200, donor_name: 'Across Processes' }));

    const signalled = Date.now();
    child.kill('SIGTERM');
    await s.ended;
    expect(s.events.some((e) => e.event === 'closed')).toBe(false);
    expect(await exited).toBe(0);
    // Streams never finish by themselves: without ending them first it would wait out its 90 s budget.
    expect(Date.now() - signalled).toBeLessThan(60_000);
  });
});
