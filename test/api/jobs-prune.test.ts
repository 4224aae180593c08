import { randomUUID } from 'node:crypto';
import { closeDb, createTestApp } from '../helpers/app';
import { enqueue } from '../../src/infra/jobs';
import { pendingJobs } from '../../src/jobs/admin';
import { pruneOnce, RETENTION } from '../../src/jobs/crontab';
import { createUser } from '../helpers/auth';

afterAll(closeDb);

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000);

it('when the prune task runs, then delivered old events, old inbox records, long-failed jobs and idempotency keys past 24 hours go, and everything still in use stays', async () => {
  const t = createTestApp();
  const db = t.ctx.db;
  const ev = async (createdAt: Date) => (await db('events').insert({ type: 'ping', payload: '{}', created_at: createdAt }).returning('id'))[0].id as string;
  const delivered = await ev(daysAgo(RETENTION.eventsDays + 1));
  const recent = await ev(daysAgo(1));
  const stillQueued = await ev(daysAgo(RETENTION.eventsDays + 1));
  const task = `prune-${randomUUID()}`;
  await enqueue(db, task, { event_id: stillQueued });
  const failedTask = `prune-failed-${randomUUID()}`;
  await enqueue(db, failedTask, {}, { maxAttempts: 1 });
  await db.raw(`update graphile_worker._private_jobs set attempts = 1, updated_at = now() - make_interval(days => ?)
    where task_id = (select id from graphile_worker._private_tasks where identifier = ?)`, [RETENTION.failedJobsDays + 1, failedTask]);
  await db('job_inbox').insert([
    { consumer: 'old', message_id: delivered, handled_at: daysAgo(RETENTION.inboxDays + 1) },
    { consumer: 'new', message_id: recent },
  ]);

  const keyRow = (key: string, createdAt: Date) => ({ scope: 'guest', key, method: 'POST', path: '/api/v1/donations', fingerprint: 'f', state: 'complete', claim: randomUUID(), status_code: 201, created_at: createdAt });
  const oldKey = `old-${randomUUID()}`;
  const freshKey = `fresh-${randomUUID()}`;
  await db('idempotency_keys').insert([keyRow(oldKey, new Date(Date.now() - 25 * 3_600_000)), keyRow(freshKey, new Date())]);

  const pruned = await pruneOnce(t.ctx);

  expect(pruned).toMatchObject({ events: 1, failed_jobs: 1, job_inbox: 1, idempotency_keys: 1 });
  expect(await db('idempotency_keys').whereIn('key', [oldKey, freshKey]).pluck('key')).toEqual([freshKey]);
  expect((await db('events').whereIn('id', [delivered, recent, stillQueued]).pluck('id')).sort()).toEqual([recent, stillQueued].sort());
  expect(await pendingJobs(db, task)).toHaveLength(1);
  const failedLeft = await db.raw(`select count(*)::int n from graphile_worker.jobs where task_identifier = ?`, [failedTask]);
  expect(failedLeft.rows[0].n).toBe(0);
  expect(await db('job_inbox').whereIn('consumer', ['old', 'new']).pluck('consumer')).toEqual(['new']);
});

it('when the prune task runs, then each owner drops its old finished webhook deliveries and its rows expired past the grace day, and keeps the rest', async () => {
  const t = createTestApp();
  const db = t.ctx.db;
  const user = await createUser(db);
  const [endpoint] = await db('webhook_endpoints').insert({ user_id: user.id, url: 'https://hooks.example.test/in', events: ['donation.paid'], secret: 'whsec_x' }).returning('id');
  const delivery = (status: string, createdAt: Date) => ({ endpoint_id: endpoint.id, event_id: randomUUID(), event_type: 'donation.paid', payload: '{}', status, created_at: createdAt });
  const old = daysAgo(RETENTION.webhookDeliveriesDays + 1);
  const deliveries = await db('webhook_deliveries')
    .insert([delivery('succeeded', old), delivery('pending', old), delivery('succeeded', daysAgo(1))])
    .returning('id');
  const token = (expiresAt: Date) => ({ user_id: user.id, kind: 'email', email: user.email, token_hash: randomUUID(), expires_at: expiresAt });
  const tokens = await db('verification_tokens')
    .insert([token(daysAgo(RETENTION.expiredDays + 1)), token(daysAgo(RETENTION.expiredDays - 0.5))])
    .returning('id');

  const pruned = await pruneOnce(t.ctx);

  expect(pruned.webhook_deliveries).toBeGreaterThanOrEqual(1);
  expect(pruned.verification_tokens).toBeGreaterThanOrEqual(1);
  for (const step of ['idp_codes', 'idp_sessions', 'refresh_token_owners', 'used_attestations', 'community_withdrawal_codes', 'privacy_requests']) expect(pruned[step]).toEqual(expect.any(Number));
  expect((await db('webhook_deliveries').whereIn('id', deliveries.map((d) => d.id)).pluck('id')).sort()).toEqual([deliveries[1].id, deliveries[2].id].sort());
  expect(await db('verification_tokens').whereIn('id', tokens.map((r) => r.id)).pluck('id')).toEqual([tokens[1].id]);
});
