import { randomUUID } from 'node:crypto';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { accounts, post, UnbalancedLedgerGroup } from '../../src/modules/ledger';
import { emit, on, registerSubscribers } from '../../src/events';
import { enqueue, JobWorker } from '../../src/jobs/queue';
import { createLogger } from '../../src/infra/logger';

afterAll(closeDb);

const log = createLogger('silent');

describe('ledger', () => {
  it('when a group does not balance, then post refuses it and nothing is written', async () => {
    const db = testDb();
    const before = await db('ledger_entries').count<{ n: string }[]>({ n: '*' });
    await expect(
      db.transaction((trx) =>
        post(trx, [
          { account: accounts.processorBalance, amount_cents: 1000, currency: 'usd', kind: 'donation' },
          { account: accounts.campaign(randomUUID()), amount_cents: -999, currency: 'usd', kind: 'donation' },
        ]),
      ),
    ).rejects.toBeInstanceOf(UnbalancedLedgerGroup);
    const after = await db('ledger_entries').count<{ n: string }[]>({ n: '*' });
    expect(after[0].n).toBe(before[0].n);
  });

  it('when rows bypass post() unbalanced, then the database refuses the commit', async () => {
    const db = testDb();
    const group = randomUUID();
    await expect(
      db.transaction(async (trx) => {
        await trx('ledger_entries').insert({ group_id: group, account: 'asset:x', amount_cents: 5, currency: 'usd', kind: 'donation' });
      }),
    ).rejects.toThrow(/unbalanced/);
    expect(await db('ledger_entries').where({ group_id: group })).toHaveLength(0);
  });

  it('when a balanced group is posted, then its rows can be neither updated nor deleted', async () => {
    const db = testDb();
    const group = await db.transaction((trx) =>
      post(trx, [
        { account: accounts.processorBalance, amount_cents: 700, currency: 'USD', kind: 'tip' },
        { account: accounts.tips, amount_cents: -700, currency: 'USD', kind: 'tip' },
      ]),
    );
    const rows = await db('ledger_entries').where({ group_id: group });
    expect(rows.map((r) => r.currency)).toEqual(['usd', 'usd']);
    await expect(db('ledger_entries').where({ group_id: group }).update({ amount_cents: 1 })).rejects.toThrow(/append-only/);
    await expect(db('ledger_entries').where({ group_id: group }).del()).rejects.toThrow(/append-only/);
  });
});

describe('job leases', () => {
  it('when a worker dies holding a lease, then another worker runs the job after the lease lapses', async () => {
    const db = testDb();
    const queue = `lease-${randomUUID()}`;
    await enqueue(db, queue, { n: 1 });
    // A worker claimed it and died: attempts counted, lease already lapsed.
    await db('jobs').where({ queue }).update({ attempts: 1, lease_token: randomUUID(), locked_until: db.raw("now() - interval '1 second'") });
    const seen: number[] = [];
    const w = new JobWorker(db, log).register(queue, async (_p, job) => {
      seen.push(job.attempts);
    });
    expect(await w.drain()).toBe(1);
    expect(seen).toEqual([2]);
    expect((await db('jobs').where({ queue }).first()).done_at).not.toBeNull();
  });

  it('when a lease is still held, then no other worker takes the job', async () => {
    const db = testDb();
    const queue = `held-${randomUUID()}`;
    await enqueue(db, queue, {});
    await db('jobs').where({ queue }).update({ attempts: 1, lease_token: randomUUID(), locked_until: db.raw("now() + interval '5 minutes'") });
    const w = new JobWorker(db, log).register(queue, async () => undefined);
    expect(await w.drain()).toBe(0);
  });

  it('when an atomic handler loses its lease mid-run, then its effect is rolled back', async () => {
    const db = testDb();
    const queue = `atomic-${randomUUID()}`;
    const marker = `m-${randomUUID()}`;
    await enqueue(db, queue, {});
    const w = new JobWorker(db, log).registerAtomic(queue, async (_p, job, trx) => {
      await trx('app_secrets').insert({ name: marker, value: 'x' });
      // Another worker took the job over meanwhile.
      await db('jobs').where({ id: job.id }).update({ lease_token: randomUUID() });
    });
    await w.drain();
    expect(await db('app_secrets').where({ name: marker }).first()).toBeUndefined();
  });
});

describe('events', () => {
  it('when the emitting transaction rolls back, then no subscriber ever runs', async () => {
    const t = createTestApp();
    const calls: string[] = [];
    const name = `rollback-${randomUUID()}`;
    registerSubscribers(t.ctx, [on('fundraiser.goal_reached', name, async (_ctx, p) => void calls.push(p.fundraiser_id))]);
    await expect(
      t.ctx.db.transaction(async (trx) => {
        await emit(trx, 'fundraiser.goal_reached', { fundraiser_id: 'f-rolled-back', holder_user_id: 'u' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await t.runJobs();
    expect(calls).not.toContain('f-rolled-back');
  });

  it('when two workers drain at once, then each subscriber handles an event exactly once', async () => {
    const a = createTestApp();
    const b = createTestApp();
    const id = randomUUID();
    const handled: string[] = [];
    const subs = [
      on('fundraiser.goal_reached', `once-a-${id}`, async (_ctx, p, trx) => {
        handled.push(`a:${p.fundraiser_id}`);
        await trx('app_secrets').insert({ name: `a-${p.fundraiser_id}`, value: '1' });
      }),
      on('fundraiser.goal_reached', `once-b-${id}`, async (_ctx, p) => void handled.push(`b:${p.fundraiser_id}`)),
    ];
    registerSubscribers(a.ctx, subs);
    registerSubscribers(b.ctx, subs);
    await a.ctx.db.transaction((trx) => emit(trx, 'fundraiser.goal_reached', { fundraiser_id: id, holder_user_id: 'u' }));
    await Promise.all([a.runJobs(), b.runJobs(), a.runJobs()]);
    expect(handled.filter((h) => h === `a:${id}`)).toHaveLength(1);
    expect(handled.filter((h) => h === `b:${id}`)).toHaveLength(1);
    expect(await a.ctx.db('app_secrets').where({ name: `a-${id}` })).toHaveLength(1);
  });
});
