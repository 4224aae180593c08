import request from 'supertest';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

let t: TestApp;
beforeAll(() => {
  t = createTestApp();
});

const API = '/api/v1';
const as = async (u: TestUser) => authHeaders(t, u);
const follow = async (who: TestUser, id: string, type = 'user') =>
  request(t.app).post(`${API}/subscriptions`).set(await as(who)).send({ following_id: id, following_type: type });
const block = async (who: TestUser, id: string) => request(t.app).put(`${API}/users/${id}/block`).set(await as(who));

describe('POST /subscriptions', () => {
  it('when a user follows another, then 201 with the row; again, 200 with the same row', async () => {
    const me = await createUser(t.ctx.db);
    const them = await createUser(t.ctx.db);
    const r1 = await follow(me, them.id);
    expect(r1.status).toBe(201);
    expect(r1.body.data).toEqual({ id: expect.any(String), following_id: them.id, following_type: 'user', created_at: expect.any(String) });
    const r2 = await follow(me, them.id);
    expect(r2.status).toBe(200);
    expect(r2.body.data).toEqual(r1.body.data);
  });

  it('when the caller follows themself, then 400; an unknown user or organization, 404; bad type or id, 400', async () => {
    const me = await createUser(t.ctx.db);
    expect((await follow(me, me.id)).status).toBe(400);
    expect((await follow(me, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await follow(me, '00000000-0000-4000-8000-000000000000', 'organization')).status).toBe(404);
    expect((await follow(me, me.id, 'campaign')).status).toBe(400);
    expect((await follow(me, 'nope')).status).toBe(400);
    expect((await request(t.app).post(`${API}/subscriptions`).send({ following_id: me.id, following_type: 'user' })).status).toBe(401);
  });

  it('when a user is followed, then they get one new_follower notification, even after unfollow and follow again', async () => {
    const me = await createUser(t.ctx.db, { name: 'Ada <b>' });
    const them = await createUser(t.ctx.db);
    await follow(me, them.id);
    await request(t.app).delete(`${API}/subscriptions/user/${them.id}`).set(await as(me));
    await follow(me, them.id);
    await t.runJobs();
    await t.runJobs();
    const rows = await t.ctx.db('notifications').where({ user_id: them.id, type: 'new_follower' });
    expect(rows).toHaveLength(1);
    expect(rows[0].message).toContain('Ada &lt;b&gt;');
    expect(rows[0].metadata).toEqual({ follower_id: me.id });
  });
});

describe('DELETE /subscriptions/{type}/{id} and GET /subscriptions', () => {
  it('when the caller unfollows, then 204 and the list no longer has it; the list pages with a total', async () => {
    const me = await createUser(t.ctx.db);
    const a = await createUser(t.ctx.db);
    const b = await createUser(t.ctx.db);
    await follow(me, a.id);
    await follow(me, b.id);
    const h = await as(me);
    const list = await request(t.app).get(`${API}/subscriptions?limit=1`).set(h);
    expect(list.body.pagination).toEqual({ limit: 1, offset: 0, total: 2 });
    expect(list.body.data[0].following_id).toBe(b.id);
    expect((await request(t.app).delete(`${API}/subscriptions/user/${b.id}`).set(h)).status).toBe(204);
    expect((await request(t.app).delete(`${API}/subscriptions/user/${b.id}`).set(h)).status).toBe(204);
    expect((await request(t.app).delete(`${API}/subscriptions/user/not-a-uuid`).set(h)).status).toBe(400);
    expect((await request(t.app).delete(`${API}/subscriptions/page/${b.id}`).set(h)).status).toBe(400);
    const after = await request(t.app).get(`${API}/subscriptions`).set(h);
    expect(after.body.data.map((f: any) => f.following_id)).toEqual([a.id]);
    // History is kept: the ended follow is still a row.
    expect(await t.ctx.db('follows').where({ follower_id: me.id, following_id: b.id })).toHaveLength(1);
  });
});

describe('blocks', () => {
  it('when a user blocks another, then 204, the list shows their public face and never an email; unblock, 204', async () => {
    const me = await createUser(t.ctx.db);
    const them = await createUser(t.ctx.db, { name: 'Troll' });
    expect((await block(me, them.id)).status).toBe(204);
    expect((await block(me, them.id)).status).toBe(204);
    const h = await as(me);
    const list = await request(t.app).get(`${API}/users/me/blocks`).set(h);
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ limit: 50, offset: 0, total: 1 });
    expect(Object.keys(list.body.data[0]).sort()).toEqual(['avatar', 'blocked_at', 'handle', 'id', 'name']);
    expect(list.body.data[0]).toMatchObject({ id: them.id, name: 'Troll' });
    expect(JSON.stringify(list.body)).not.toContain(them.email);
    expect((await request(t.app).get(`${API}/users/me/blocks?limit=500`).set(h)).body.pagination.limit).toBe(100);
    expect((await request(t.app).delete(`${API}/users/${them.id}/block`).set(h)).status).toBe(204);
    expect((await request(t.app).get(`${API}/users/me/blocks`).set(h)).body.data).toEqual([]);
  });

  it('when the target is the caller, then 400; unknown, 404; not a uuid, 400', async () => {
    const me = await createUser(t.ctx.db);
    expect((await block(me, me.id)).status).toBe(400);
    expect((await block(me, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await block(me, 'x')).status).toBe(400);
  });

  it('when a blocked user tries to follow the blocker, then 403; a follow they had ends with the block', async () => {
    const blocker = await createUser(t.ctx.db);
    const blocked = await createUser(t.ctx.db);
    await follow(blocked, blocker.id);
    await block(blocker, blocked.id);
    await t.runJobs();
    await t.runJobs();
    expect(await t.ctx.db('follows').where({ follower_id: blocked.id, following_id: blocker.id }).whereNull('deleted_at')).toHaveLength(0);
    const r = await follow(blocked, blocker.id);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('BLOCKED');
  });

  it("when a blocked user comments on the blocker's campaign, then 403; the blocker no longer sees their comments, others still do", async () => {
    const blocker = await createUser(t.ctx.db);
    const blocked = await createUser(t.ctx.db);
    const bystander = await createUser(t.ctx.db);
    const f = await createFundraiser(t.ctx.db, blocker.id);
    const other = await createFundraiser(t.ctx.db, bystander.id);
    const post = async (u: TestUser, fid: string, body: Record<string, unknown>) =>
      request(t.app).post(`${API}/fundraisers/${fid}/comments`).set(await as(u)).send(body);
    const top = await post(bystander, other.id, { body: 'first' });
    expect((await post(blocked, other.id, { body: 'hello' })).status).toBe(201);
    expect((await post(blocked, other.id, { body: 'reply', parent_id: top.body.data.id })).status).toBe(201);
    await block(blocker, blocked.id);
    const r = await post(blocked, f.id, { body: 'hi' });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('BLOCKED');
    const seen = await request(t.app).get(`${API}/fundraisers/${other.id}/comments`).set(await as(blocker));
    expect(seen.body.pagination.total).toBe(1);
    expect(seen.body.data.map((c: any) => c.body)).toEqual(['first']);
    expect(seen.body.data[0].replies).toEqual([]);
    const guest = await request(t.app).get(`${API}/fundraisers/${other.id}/comments`);
    expect(guest.body.pagination.total).toBe(2);
    expect(guest.body.data.find((c: any) => c.body === 'first').replies).toHaveLength(1);
  });
});
