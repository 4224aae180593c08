import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const db = t.ctx.db;
let owner: TestUser;
let alice: TestUser;
let bob: TestUser;
let f: FundraiserRow;

beforeAll(async () => {
  owner = await createUser(db);
  alice = await createUser(db, { name: 'Alice' });
  bob = await createUser(db, { name: 'Bob' });
  f = await createFundraiser(db, owner.id);
});

async function comment(user: TestUser, fundraiserId: string, b: Record<string, unknown>, app = t) {
  return request(app.app).post(`/api/v1/fundraisers/${fundraiserId}/comments`).set(await authHeaders(app, user)).send(b);
}

describe('POST /fundraisers/:fundraiserId/comments', () => {
  test('when a verified user comments then 201 with the comment read shape', async () => {
    const res = await comment(alice, f.id, { body: '  Go team!  ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: {
        id: expect.any(String), fundraiser_id: f.id, parent_id: null, body: 'Go team!', gif_id: null, like_count: 0, liked_by_me: false,
        author: { id: alice.id, name: 'Alice', avatar: null, profile_slug: expect.any(String) }, created_at: expect.any(String),
      },
    });
  });

  test('when the body carries markup then tags and script content are removed, text kept', async () => {
    const res = await comment(alice, f.id, { body: '<b>Hi</b> <script>alert(1)</script><img src=x onerror=alert(1)> I <3 this & that' });
    expect(res.body.data.body).toBe('Hi  I <3 this & that');
  });

  test('when the markup is entity-encoded (once, twice, numerically) then no tag survives decoding, in the answer, the list or the row', async () => {
    const attacks: Array<[string, string]> = [
      ['&lt;img src=x onerror=alert(1)&gt;ok', 'ok'],
      ['&amp;lt;img src=x onerror=alert(1)&amp;gt;ok', 'ok'],
      ['&#60;script&#62;alert(1)&#60;/script&#62;ok', 'ok'],
      ['&lt;&lt;img src=x&gt;img src=y onerror=alert(1)&gt;ok', 'ok'],
      ['Tom &amp; Jerry: 2 &lt; 3', 'Tom & Jerry: 2 < 3'],
    ];
    const g = await createFundraiser(db, owner.id);
    for (const [body, expected] of attacks) {
      const res = await comment(alice, g.id, { body });
      expect({ body, status: res.status, served: res.body.data?.body }).toEqual({ body, status: 201, served: expected });
      expect((await db('comments').where({ id: res.body.data.id }).first()).body).toBe(expected);
    }
    const list = await request(t.app).get(`/api/v1/fundraisers/${g.id}/comments?limit=100`);
    for (const c of list.body.data as Array<{ body: string }>) expect(c.body).not.toMatch(/<[a-z/!?]|&(lt|gt|amp|#\d+);/i);
  });

  test('when the body is only encoded markup then 400 like an empty comment; absurdly nested encoding 400 too', async () => {
    const empty = await comment(alice, f.id, { body: '&lt;img src=x onerror=alert(1)&gt;' });
    expect(empty.status).toBe(400);
    expect(empty.body.details[0].path).toBe('body.body');
    const deep = await comment(alice, f.id, { body: `&${'amp;'.repeat(20)}lt;b&gt;x` });
    expect(deep.status).toBe(400);
    expect(deep.body).toMatchObject({ error: 'Validation failed', details: [{ path: 'body.body', message: expect.any(String) }] });
  });

  test('when replying then parent_id is set; a reply to a reply joins the top-level thread', async () => {
    const top = await comment(alice, f.id, { body: 'top' });
    const r1 = await comment(bob, f.id, { body: 'reply', parent_id: top.body.data.id });
    expect(r1.body.data.parent_id).toBe(top.body.data.id);
    const r2 = await comment(alice, f.id, { body: 'reply to reply', parent_id: r1.body.data.id });
    expect(r2.body.data.parent_id).toBe(top.body.data.id);
  });

  test('when parent_id is on another campaign or unknown then 400', async () => {
    const g = await createFundraiser(db, owner.id);
    const elsewhere = await comment(alice, g.id, { body: 'there' });
    expect((await comment(alice, f.id, { body: 'x', parent_id: elsewhere.body.data.id })).status).toBe(400);
    expect((await comment(alice, f.id, { body: 'x', parent_id: randomUUID() })).status).toBe(400);
    expect((await comment(alice, f.id, { body: 'x', parent_id: 'nope' })).status).toBe(400);
  });

  test('when a GIF is attached then the body may be empty; with neither then 400', async () => {
    const res = await comment(alice, f.id, { body: '', gif_id: 'abc123' });
    expect(res.status).toBe(201);
    expect(res.body.data.gif_id).toBe('abc123');
    expect(res.headers['ratelimit-limit']).toBe('60');
    const none = await comment(alice, f.id, { body: '   ' });
    expect(none.status).toBe(400);
    expect((await comment(alice, f.id, { body: 'x', gif_id: 'bad id!' })).status).toBe(400);
    expect((await comment(alice, f.id, { body: 5 })).status).toBe(400);
    expect((await comment(alice, f.id, { body: 'x'.repeat(5001) })).status).toBe(400);
  });

  test('when comments without a GIF are posted then the GIF bucket is not used', async () => {
    const res = await comment(alice, f.id, { body: 'plain' });
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });

  test('when 61 GIF comments are posted in a minute then 429 from the GIF bucket', async () => {
    const t2 = createTestApp();
    const u = await createUser(db);
    const h = await authHeaders(t2, u);
    let last: request.Response | null = null;
    for (let i = 0; i < 61; i += 1) last = await request(t2.app).post(`/api/v1/fundraisers/${f.id}/comments`).set(h).send({ body: 'g', gif_id: 'g1' });
    expect(last!.status).toBe(429);
    expect(last!.body).toMatchObject({ error: 'Too many GIF requests. Please wait a minute and try again.', retryAfter: 60 });
  });

  test('when the email is not verified then 403 EMAIL_NOT_VERIFIED', async () => {
    const u = await createUser(db, { email_verified: false });
    const res = await comment(u, f.id, { body: 'hi' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      error: 'Forbidden', message: 'Please verify your email address to continue', code: 'EMAIL_NOT_VERIFIED', action: 'verify_email',
    });
  });

  test('when unauthenticated then 401; bad id 400; unreadable or unknown campaign 404', async () => {
    expect((await request(t.app).post(`/api/v1/fundraisers/${f.id}/comments`).send({ body: 'x' })).status).toBe(401);
    expect((await comment(alice, 'nope', { body: 'x' })).status).toBe(400);
    const draft = await createFundraiser(db, owner.id, { status: 'draft' });
    expect((await comment(alice, draft.id, { body: 'x' })).status).toBe(404);
    expect((await comment(alice, randomUUID(), { body: 'x' })).status).toBe(404);
  });

  test('when features.comments is off then 403 with feature_key', async () => {
    const t2 = createTestApp();
    jest.spyOn(t2.ctx.flags, 'isEnabled').mockImplementation(async (k) => k !== 'features.comments');
    const res = await comment(alice, f.id, { body: 'x' }, t2);
    expect(res.status).toBe(403);
    expect(res.body.feature_key).toBe('features.comments');
  });
});

describe('GET /fundraisers/:id/comments', () => {
  test('when listed then top-level newest first with replies nested oldest first, paged', async () => {
    const g = await createFundraiser(db, owner.id);
    const a = await comment(alice, g.id, { body: 'first' });
    const b = await comment(bob, g.id, { body: 'second' });
    const r1 = await comment(bob, g.id, { body: 'r1', parent_id: a.body.data.id });
    const r2 = await comment(alice, g.id, { body: 'r2', parent_id: a.body.data.id });
    const res = await request(t.app).get(`/api/v1/fundraisers/${g.id}/comments`);
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('300');
    expect(res.body.pagination).toEqual({ limit: 20, offset: 0, total: 2 });
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([b.body.data.id, a.body.data.id]);
    expect(res.body.data[1].replies.map((c: { id: string }) => c.id)).toEqual([r1.body.data.id, r2.body.data.id]);
    const page = await request(t.app).get(`/api/v1/fundraisers/${g.id}/comments?limit=1&offset=1`);
    expect(page.body.pagination).toEqual({ limit: 1, offset: 1, total: 2 });
    expect(page.body.data[0].id).toBe(a.body.data.id);
    const junk = await request(t.app).get(`/api/v1/fundraisers/${g.id}/comments?limit=abc&offset=-3`);
    expect(junk.body.pagination).toMatchObject({ limit: 20, offset: 0 });
    expect((await request(t.app).get(`/api/v1/fundraisers/${g.id}/comments?limit=1000`)).body.pagination.limit).toBe(100);
  });

  test('when the campaign is unreadable then 404 to guests and others but the owner reads it; bad id 400', async () => {
    const p = await createFundraiser(db, owner.id, { visibility: 'private' });
    expect((await request(t.app).get(`/api/v1/fundraisers/${p.id}/comments`)).status).toBe(404);
    expect((await request(t.app).get(`/api/v1/fundraisers/${p.id}/comments`).set(await authHeaders(t, alice))).status).toBe(404);
    expect((await request(t.app).get(`/api/v1/fundraisers/${p.id}/comments`).set(await authHeaders(t, owner))).status).toBe(200);
    expect((await request(t.app).get('/api/v1/fundraisers/nope/comments')).status).toBe(400);
  });
});

describe('likes', () => {
  test('when liking twice and unliking twice then idempotent counts and liked_by_me follows', async () => {
    const c = (await comment(alice, f.id, { body: 'like me' })).body.data;
    const path = `/api/v1/comments/${c.id}/like`;
    const h = await authHeaders(t, bob);
    const first = await request(t.app).put(path).set(h);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ like_count: 1, liked: true });
    expect(first.headers['ratelimit-limit']).toBe('100');
    expect((await request(t.app).put(path).set(h)).body).toEqual({ like_count: 1, liked: true });
    expect((await request(t.app).put(path).set(await authHeaders(t, alice))).body).toEqual({ like_count: 2, liked: true });
    const list = await request(t.app).get(`/api/v1/fundraisers/${f.id}/comments?limit=100`).set(h);
    const mine = list.body.data.find((x: { id: string }) => x.id === c.id);
    expect(mine).toMatchObject({ like_count: 2, liked_by_me: true });
    const guest = await request(t.app).get(`/api/v1/fundraisers/${f.id}/comments?limit=100`);
    expect(guest.body.data.find((x: { id: string }) => x.id === c.id).liked_by_me).toBe(false);
    expect((await request(t.app).delete(path).set(h)).body).toEqual({ like_count: 1, liked: false });
    expect((await request(t.app).delete(path).set(h)).body).toEqual({ like_count: 1, liked: false });
  });

  test('when unauthenticated, bad id, unknown comment or flag off then 401 / 400 / 404 / 403', async () => {
    const c = (await comment(alice, f.id, { body: 'x' })).body.data;
    expect((await request(t.app).put(`/api/v1/comments/${c.id}/like`)).status).toBe(401);
    expect((await request(t.app).put('/api/v1/comments/nope/like').set(await authHeaders(t, bob))).status).toBe(400);
    expect((await request(t.app).put(`/api/v1/comments/${randomUUID()}/like`).set(await authHeaders(t, bob))).status).toBe(404);
    const t2 = createTestApp();
    jest.spyOn(t2.ctx.flags, 'isEnabled').mockImplementation(async (k) => k !== 'features.comments');
    const off = await request(t2.app).delete(`/api/v1/comments/${c.id}/like`).set(await authHeaders(t2, bob));
    expect(off.status).toBe(403);
    expect(off.body.feature_key).toBe('features.comments');
  });
});

describe('DELETE /comments/:id', () => {
  test('when the author deletes then it disappears from the list; others 403; again 404', async () => {
    const g = await createFundraiser(db, owner.id);
    const c = (await comment(alice, g.id, { body: 'bye' })).body.data;
    expect((await request(t.app).delete(`/api/v1/comments/${c.id}`).set(await authHeaders(t, bob))).status).toBe(403);
    expect((await request(t.app).delete(`/api/v1/comments/${c.id}`).set(await authHeaders(t, owner))).status).toBe(403);
    const res = await request(t.app).delete(`/api/v1/comments/${c.id}`).set(await authHeaders(t, alice));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Comment deleted', id: c.id });
    expect((await request(t.app).get(`/api/v1/fundraisers/${g.id}/comments`)).body.data).toEqual([]);
    expect((await db('comments').where({ id: c.id }).first()).deleted_at).not.toBeNull();
    expect((await request(t.app).delete(`/api/v1/comments/${c.id}`).set(await authHeaders(t, alice))).status).toBe(404);
  });

  test('when unauthenticated or a bad id then 401 / 400', async () => {
    expect((await request(t.app).delete(`/api/v1/comments/${randomUUID()}`)).status).toBe(401);
    expect((await request(t.app).delete('/api/v1/comments/nope').set(await authHeaders(t, alice))).status).toBe(400);
  });
});

describe('comment_received notifications', () => {
  const received = (userId: string, commentId: string) =>
    db('notifications').where({ user_id: userId, type: 'comment_received' }).whereRaw("metadata->>'comment_id' = ?", [commentId]);

  test('when someone comments and replies, then the holder and the parent\'s author each get one comment_received; the commenter never', async () => {
    const holder = await createUser(db);
    const campaign = await createFundraiser(db, holder.id, { title: 'Roof <repairs>' });
    const top = await comment(alice, campaign.id, { body: 'Love <b>this</b> project' });
    await t.runJobs();
    await t.runJobs();
    const toHolder = await received(holder.id, top.body.data.id);
    expect(toHolder).toHaveLength(1);
    expect(toHolder[0]).toMatchObject({ title: 'New comment', category: 'social' });
    expect(toHolder[0].message).toContain('Alice');
    expect(toHolder[0].message).toContain('Roof &lt;repairs&gt;');
    expect(await received(alice.id, top.body.data.id)).toHaveLength(0);
    // Its mail goes out under the comment_received toggle (on by default).
    await t.runJobs();
    expect(await db('mail_outbox').where({ to: holder.email })).not.toHaveLength(0);

    const reply = await comment(bob, campaign.id, { body: 'Agreed', parent_id: top.body.data.id });
    await t.runJobs();
    await t.runJobs();
    expect(await received(alice.id, reply.body.data.id)).toMatchObject([{ title: 'New reply to your comment' }]);
    expect(await received(holder.id, reply.body.data.id)).toHaveLength(1);
    expect(await received(bob.id, reply.body.data.id)).toHaveLength(0);

    // The holder commenting or replying on their own campaign notifies nobody of themself; the parent's author still hears of the reply.
    const own = await comment(holder, campaign.id, { body: 'Thanks all', parent_id: top.body.data.id });
    await t.runJobs();
    await t.runJobs();
    expect(await received(holder.id, own.body.data.id)).toHaveLength(0);
    expect(await received(alice.id, own.body.data.id)).toHaveLength(1);
    const list = await request(t.app).get('/api/v1/notifications').set(await authHeaders(t, holder));
    expect(list.body.notifications.map((n: any) => n.type)).toContain('comment_received');
  });
});
