import { randomUUID } from 'node:crypto';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { accounts, post, UnbalancedLedgerGroup } from '../../src/modules/ledger';
import { emit, on, registerSubscribers } from '../../src/events';
import { claimInbox, enqueue, JobWorker } from '../../src/infra/jobs';
import { makeDue, pendingJobs } from '../../src/jobs/admin';
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

describe('jobs on graphile-worker', () => {
  it('when the transaction that queued a job rolls back, then no job exists', async () => {
    const db = testDb();
    const queue = `rollback-${randomUUID()}`;
    await expect(
      db.transaction(async (trx) => {
        await enqueue(trx, queue, { n: 1 });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await pendingJobs(db, queue)).toHaveLength(0);
    await db.transaction((trx) => enqueue(trx, queue, { n: 2 }));
    expect((await pendingJobs(db, queue)).map((j) => j.payload)).toEqual([{ n: 2 }]);
  });

  it('when a job is queued, then a drain runs it once with its payload and removes it', async () => {
    const db = testDb();
    const queue = `run-${randomUUID()}`;
    await enqueue(db, queue, { n: 1 });
    const seen: Array<[unknown, number]> = [];
    const w = new JobWorker(db, log).register(queue, async (p, job) => void seen.push([p.n, job.attempts]));
    expect(await w.drain()).toBe(1);
    expect(await w.drain()).toBe(0);
    expect(seen).toEqual([[1, 1]]);
    expect(await pendingJobs(db, queue)).toHaveLength(0);
  });

  it('when a handler fails, then the job waits with a backoff and runs again once due', async () => {
    const db = testDb();
    const queue = `retry-${randomUUID()}`;
    await enqueue(db, queue, {}, { maxAttempts: 3 });
    let calls = 0;
    const w = new JobWorker(db, log).register(queue, async () => {
      calls += 1;
      if (calls === 1) throw new Error('flaky');
    });
    await w.drain();
    const [waiting] = await pendingJobs(db, queue);
    expect(waiting).toMatchObject({ attempts: 1, last_error: expect.stringContaining('flaky') });
    expect(new Date(waiting!.run_at).getTime()).toBeGreaterThan(Date.now());
    expect(await w.drain()).toBe(0);
    await makeDue(db, queue);
    await w.drain();
    expect(calls).toBe(2);
    expect(await pendingJobs(db, queue)).toHaveLength(0);
  });

  it('when two jobs share a singleton key, then one waits and keeps the first run time', async () => {
    const db = testDb();
    const queue = `single-${randomUUID()}`;
    const later = new Date(Date.now() + 60_000);
    await enqueue(db, queue, { v: 1 }, { singletonKey: 'k', runAt: later });
    await enqueue(db, queue, { v: 2 }, { singletonKey: 'k', runAt: new Date(Date.now() + 120_000) });
    const jobs = await pendingJobs(db, queue);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ key: `${queue}:k`, payload: { v: 2 } });
    expect(Math.abs(new Date(jobs[0]!.run_at).getTime() - later.getTime())).toBeLessThan(1000);
  });

  it('when an atomic job is run again after its effect committed, then the effect is not repeated', async () => {
    const db = testDb();
    const queue = `atomic-${randomUUID()}`;
    const marker = `m-${randomUUID()}`;
    await enqueue(db, queue, {});
    const [job] = await pendingJobs(db, queue);
    // The worker committed the effect and its inbox row, then died before completing the job.
    await db.transaction((trx) => claimInbox(trx, queue, job!.id));
    const w = new JobWorker(db, log).registerAtomic(queue, async (_p, _job, trx) => {
      await trx('app_secrets').insert({ name: marker, value: 'x' });
    });
    expect(await w.drain()).toBe(1);
    expect(await db('app_secrets').where({ name: marker }).first()).toBeUndefined();
    expect(await pendingJobs(db, queue)).toHaveLength(0);
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
