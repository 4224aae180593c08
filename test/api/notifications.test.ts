import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { emit } from '../../src/events';
import { enqueue } from '../../src/infra/jobs';
import { notify, type NotificationType } from '../../src/modules/notifications';
import { campaignUpdatesFeed } from '../../src/modules/feed';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);
afterEach(() => jest.restoreAllMocks());

let t: TestApp;
beforeAll(() => {
  t = createTestApp();
});

async function seed(user: TestUser, n: number, extra: Partial<{ type: NotificationType }> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const id = await t.ctx.db.transaction((trx) =>
      notify(trx, {
        user_id: user.id,
        type: extra.type ?? 'comment_received',
        category: 'comment',
        title: `Note ${i}`,
        message: `Message ${i}`,
        dedupe_key: `test:${randomUUID()}`,
      }),
    );
    ids.push(id!);
    await new Promise((r) => setTimeout(r, 5)); // distinct created_at for the ordering checks
  }
  return ids;
}

const list = async (user: TestUser, q = '') => request(t.app).get(`/api/v1/notifications${q}`).set(await authHeaders(t, user));

function donationPaid(holder: string, fundraiserId: string, over: Record<string, unknown> = {}) {
  return {
    donation_id: randomUUID(),
    fundraiser_id: fundraiserId,
    holder_user_id: holder,
    donor_user_id: null,
    donor_email: 'donor@example.test',
    donor_name: 'Ada <script>alert(1)</script>',
    anonymous: false,
    amount_cents: 2500,
    tip_cents: 0,
    currency: 'usd',
    receipt_id: randomUUID(),
    ...over,
  };
}

describe('GET /notifications', () => {
  it('when no credential is sent, then 401', async () => {
    expect((await request(t.app).get('/api/v1/notifications')).status).toBe(401);
  });

  it("when the caller lists, then only their active rows come, newest first, with unreadCount and updatesUnreadCount 0", async () => {
    const me = await createUser(t.ctx.db);
    const other = await createUser(t.ctx.db);
    const ids = await seed(me, 3);
    await seed(other, 2);
    const r = await list(me);
    expect(r.status).toBe(200);
    expect(r.body.notifications.map((n: any) => n.id)).toEqual([...ids].reverse());
    expect(r.body.unreadCount).toBe(3);
    expect(r.body.updatesUnreadCount).toBe(0);
    expect(Object.keys(r.body.notifications[0]).sort()).toEqual(
      ['action_label', 'action_url', 'category', 'created_at', 'icon', 'id', 'is_archived', 'is_read', 'message', 'metadata', 'priority', 'title', 'type'].sort(),
    );
  });

  it('when limit is given, then at most that many come; above 100 it is 100; default 20', async () => {
    const me = await createUser(t.ctx.db);
    await seed(me, 22);
    expect((await list(me, '?limit=2')).body.notifications).toHaveLength(2);
    expect((await list(me)).body.notifications).toHaveLength(20);
    expect((await list(me, '?limit=1000')).body.notifications).toHaveLength(22);
  });

  it('when archived=true, then the archive comes and unreadCount still excludes archived rows', async () => {
    const me = await createUser(t.ctx.db);
    const [a, b] = await seed(me, 2);
    const h = await authHeaders(t, me);
    const ar = await request(t.app).patch('/api/v1/notifications/archive').set(h).send({ ids: [a] });
    expect(ar.body).toEqual({ success: true, archived: 1 });
    const archive = await list(me, '?archived=true');
    expect(archive.body.notifications.map((n: any) => n.id)).toEqual([a]);
    expect(archive.body.notifications[0]).toMatchObject({ is_archived: true, is_read: true });
    expect(archive.body.unreadCount).toBe(1);
    const active = await list(me, '?archived=yes');
    expect(active.body.notifications.map((n: any) => n.id)).toEqual([b]);
  });

  it('when the updates-feed count fails, then updatesUnreadCount is null and the list still answers', async () => {
    const me = await createUser(t.ctx.db);
    jest.spyOn(campaignUpdatesFeed, 'unreadCount').mockRejectedValue(new Error('feed down'));
    const r = await list(me);
    expect(r.status).toBe(200);
    expect(r.body.updatesUnreadCount).toBeNull();
  });

  it('when the list is read, then no event is published', async () => {
    const me = await createUser(t.ctx.db);
    await seed(me, 1);
    const before = await t.ctx.db('events').count<{ n: string }[]>({ n: '*' });
    await list(me);
    const after = await t.ctx.db('events').count<{ n: string }[]>({ n: '*' });
    expect(after[0].n).toBe(before[0].n);
  });
});

describe('notification writes', () => {
  it("when marking read by ids with someone else's id among them, then only the caller's rows change and the count says so", async () => {
    const me = await createUser(t.ctx.db);
    const other = await createUser(t.ctx.db);
    const [mine1, mine2] = await seed(me, 2);
    const [theirs] = await seed(other, 1);
    const h = await authHeaders(t, me);
    const r = await request(t.app).patch('/api/v1/notifications/mark-read').set(h).send({ ids: [mine1, theirs] });
    expect(r.body).toEqual({ success: true, updated: 1 });
    expect((await list(other)).body.unreadCount).toBe(1);
    const again = await request(t.app).patch('/api/v1/notifications/mark-read').set(h).send({ ids: [mine1] });
    expect(again.body).toEqual({ success: true, updated: 0 });
    expect((await list(me)).body.unreadCount).toBe(1);
    const one = await request(t.app).put(`/api/v1/notifications/${mine2}/read`).set(h);
    expect(one.body).toEqual({ success: true, updated: 1 });
    expect((await request(t.app).put(`/api/v1/notifications/${theirs}/read`).set(h)).body).toEqual({ success: true, updated: 0 });
  });

  it('when read-all is called, then every unread row of the caller is read', async () => {
    const me = await createUser(t.ctx.db);
    await seed(me, 3);
    const r = await request(t.app).put('/api/v1/notifications/read-all').set(await authHeaders(t, me));
    expect(r.body).toEqual({ success: true, updated: 3 });
    expect((await list(me)).body.unreadCount).toBe(0);
  });

  it("when deleting, then only the caller's rows go", async () => {
    const me = await createUser(t.ctx.db);
    const other = await createUser(t.ctx.db);
    const [mine] = await seed(me, 2);
    const [theirs] = await seed(other, 1);
    const r = await request(t.app).delete('/api/v1/notifications').set(await authHeaders(t, me)).send({ ids: [mine, theirs] });
    expect(r.body).toEqual({ success: true, deleted: 1 });
    expect((await list(me)).body.notifications).toHaveLength(1);
    expect((await list(other)).body.notifications).toHaveLength(1);
  });

  it.each([
    ['missing', {}],
    ['empty', { ids: [] }],
    ['not an array', { ids: 'abc' }],
    ['not uuids', { ids: ['nope'] }],
  ])('when ids is %s, then 400 ids array is required', async (_what, body) => {
    const me = await createUser(t.ctx.db);
    const h = await authHeaders(t, me);
    for (const [method, path] of [
      ['patch', '/api/v1/notifications/mark-read'],
      ['patch', '/api/v1/notifications/archive'],
      ['delete', '/api/v1/notifications'],
    ] as const) {
      const r = await request(t.app)[method](path).set(h).send(body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('ids array is required');
      expect(typeof r.body.message).toBe('string');
    }
  });

  it('when the id in the path is not a uuid, then 400', async () => {
    const me = await createUser(t.ctx.db);
    expect((await request(t.app).put('/api/v1/notifications/xyz/read').set(await authHeaders(t, me))).status).toBe(400);
  });
});

describe('notifications from events', () => {
  it('when a donation.paid event is handled, then the holder gets one donation_received notification, and a rerun of the job adds none', async () => {
    const holder = await createUser(t.ctx.db);
    const f = await createFundraiser(t.ctx.db, holder.id, { title: 'Clean <water>' });
    const payload = donationPaid(holder.id, f.id);
    const eventId = await t.ctx.db.transaction((trx) => emit(trx, 'donation.paid', payload));
    await t.runJobs();
    // The subscriber's job delivered again (a retry after a lost lease, a duplicate enqueue).
    await enqueue(t.ctx.db, 'event:notifications.donation_received', { event_id: eventId });
    await t.runJobs();
    const rows = await t.ctx.db('notifications').where({ user_id: holder.id, type: 'donation_received' });
    expect(rows).toHaveLength(1);
    const n = (await list(holder)).body.notifications[0];
    expect(n).toMatchObject({ type: 'donation_received', category: 'donation', priority: 'high', is_read: false });
    expect(n.action_url).toBe(`http://site.test/fundraisers/${f.slug}`);
    expect(n.message).toContain('$25.00');
    expect(n.message).toContain('Clean &lt;water&gt;');
    expect(n.message).toContain('Ada &lt;script&gt;');
    expect(n.message).not.toContain('<script>');
    expect(n.metadata).toMatchObject({ donation_id: payload.donation_id, fundraiser_id: f.id, amount_cents: 2500 });
  });

  it('when the gift is anonymous, then the notification names no donor', async () => {
    const holder = await createUser(t.ctx.db);
    const f = await createFundraiser(t.ctx.db, holder.id);
    await t.ctx.db.transaction((trx) => emit(trx, 'donation.paid', donationPaid(holder.id, f.id, { anonymous: true, donor_name: 'Secret Sam' })));
    await t.runJobs();
    const n = (await list(holder)).body.notifications[0];
    expect(n.message).not.toContain('Secret Sam');
    expect(JSON.stringify(n.metadata)).not.toContain('Secret Sam');
    expect(n.message).toContain('anonymous');
  });

  it("when the holder's locale is Spanish, then the notification is in Spanish", async () => {
    const holder = await createUser(t.ctx.db);
    await t.ctx.db('users').where({ id: holder.id }).update({ locale: 'es' });
    const f = await createFundraiser(t.ctx.db, holder.id);
    await t.ctx.db.transaction((trx) => emit(trx, 'donation.paid', donationPaid(holder.id, f.id)));
    await t.runJobs();
    expect((await list(holder)).body.notifications[0].title).toBe('Nueva donación recibida');
  });

  it('when payout.paid and fundraiser.goal_reached are handled, then the holder gets payout_paid and goal_reached', async () => {
    const holder = await createUser(t.ctx.db);
    const f = await createFundraiser(t.ctx.db, holder.id);
    await t.ctx.db.transaction(async (trx) => {
      await emit(trx, 'payout.paid', { payout_id: 'po_1', processor_account_id: 'acct_1', holder_user_id: holder.id, amount_cents: 12345, currency: 'usd' });
      await emit(trx, 'fundraiser.goal_reached', { fundraiser_id: f.id, holder_user_id: holder.id });
    });
    await t.runJobs();
    const byType = Object.fromEntries((await list(holder)).body.notifications.map((n: any) => [n.type, n]));
    expect(byType.payout_paid).toMatchObject({ category: 'payout' });
    expect(byType.payout_paid.message).toContain('$123.45');
    expect(byType.goal_reached.action_url).toBe(`http://site.test/fundraisers/${f.slug}`);
  });
});
