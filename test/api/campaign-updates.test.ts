import request from 'supertest';
import { emit } from '../../src/events';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { registerOrg } from '../helpers/organizations';

afterAll(closeDb);
afterEach(() => jest.restoreAllMocks());

let t: TestApp;
beforeAll(() => {
  t = createTestApp();
});

const API = '/api/v1';
const as = async (u: TestUser) => authHeaders(t, u);

/** A project update as posting leaves it: the row and its update.posted event, in one transaction. */
async function postUpdate(fundraiserId: string, authorId: string, o: { title?: string | null; body?: string; at?: Date; language?: string } = {}) {
  return t.ctx.db.transaction(async (trx) => {
    const [u] = await trx('project_updates')
      .insert({
        fundraiser_id: fundraiserId,
        author_user_id: authorId,
        title: o.title === undefined ? 'News' : o.title,
        body: o.body ?? 'Something happened',
        language: o.language ?? 'en',
        created_at: o.at ?? new Date(),
      })
      .returning('*');
    await emit(trx, 'update.posted', { update_id: u.id, fundraiser_id: fundraiserId, author_user_id: authorId, created_at: new Date(u.created_at).toISOString() });
    return u as { id: string; created_at: Date };
  });
}

const follow = async (who: TestUser, target: TestUser) =>
  request(t.app).post(`${API}/subscriptions`).set(await as(who)).send({ following_id: target.id, following_type: 'user' });
const feed = async (who: TestUser, q = '') => request(t.app).get(`${API}/me/campaign-updates${q}`).set(await as(who));
const ago = (ms: number) => new Date(Date.now() - ms);

async function holderWithCampaign(over: Record<string, unknown> = {}) {
  const holder = await createUser(t.ctx.db);
  const campaign = await createFundraiser(t.ctx.db, holder.id, over);
  return { holder, campaign };
}

describe('GET /me/campaign-updates', () => {
  it('when no credential is sent, then 401', async () => {
    expect((await request(t.app).get(`${API}/me/campaign-updates`)).status).toBe(401);
  });

  it('when a follower reads, then the holder\'s new update is there, unread, with author and fundraiser, private no-store', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const me = await createUser(t.ctx.db);
    expect((await follow(me, holder)).status).toBe(201);
    const u = await postUpdate(campaign.id, holder.id, { title: 'Week 1' });
    const r = await feed(me);
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('private, no-store');
    expect(r.body.unread_count).toBe(1);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.data).toHaveLength(1);
    const item = r.body.data[0];
    expect(item).toMatchObject({
      id: u.id,
      type: 'update',
      title: 'Week 1',
      is_read: false,
      read_at: null,
      like_count: 0,
      liked_by_me: false,
      author: { id: holder.id, name: holder.name, avatar: null },
      fundraiser: { id: campaign.id, title: campaign.title, slug: campaign.slug, cover_image: campaign.cover_image },
    });
  });

  it('when a donor with a paid gift reads, then the campaign\'s updates reach them; a pending gift connects nothing', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const donor = await createUser(t.ctx.db);
    const pending = await createUser(t.ctx.db);
    await createGift(t.ctx.db, { fundraiserId: campaign.id, donorUserId: donor.id, paidAt: ago(60_000) });
    await createGift(t.ctx.db, { fundraiserId: campaign.id, donorUserId: pending.id, status: 'pending' });
    await postUpdate(campaign.id, holder.id);
    expect((await feed(donor)).body).toMatchObject({ unread_count: 1, data: [{ fundraiser_id: campaign.id, is_read: false }] });
    expect((await feed(pending)).body).toMatchObject({ unread_count: 0, data: [] });
  });

  it('when the gift went to a private, draft or deleted campaign, then its updates are not in the feed', async () => {
    const donor = await createUser(t.ctx.db);
    for (const over of [{ visibility: 'private' }, { status: 'draft' }, { deleted_at: new Date() }]) {
      const { holder, campaign } = await holderWithCampaign(over);
      await createGift(t.ctx.db, { fundraiserId: campaign.id, donorUserId: donor.id, paidAt: ago(60_000) });
      await postUpdate(campaign.id, holder.id);
    }
    expect((await feed(donor)).body).toMatchObject({ unread_count: 0, data: [] });
  });

  it('when a follower (of a person or an organization) has no gift, then only public active or ended campaigns reach them; a donor also gets unlisted and paused ones', async () => {
    const person = await createUser(t.ctx.db);
    const orgOwner = await createUser(t.ctx.db);
    const org = await registerOrg(t, orgOwner);
    const follower = await createUser(t.ctx.db);
    const donor = await createUser(t.ctx.db);
    expect((await follow(follower, person)).status).toBe(201);
    const orgFollow = await request(t.app).post(`${API}/subscriptions`).set(await as(follower)).send({ following_id: org.id, following_type: 'organization' });
    expect(orgFollow.status).toBe(201);
    const seen: string[] = [];
    const hidden: string[] = [];
    for (const [holderId, orgId] of [[person.id, null], [orgOwner.id, org.id]] as const) {
      const cases = [
        [{ status: 'active', visibility: 'public' }, seen],
        [{ status: 'ended', visibility: 'public' }, seen],
        [{ status: 'active', visibility: 'unlisted' }, hidden],
        [{ status: 'paused', visibility: 'public' }, hidden],
      ] as const;
      for (const [over, bucket] of cases) {
        const c = await createFundraiser(t.ctx.db, holderId, { ...over, org_id: orgId });
        await createGift(t.ctx.db, { fundraiserId: c.id, donorUserId: donor.id, paidAt: ago(60_000) });
        bucket.push((await postUpdate(c.id, holderId)).id);
      }
    }
    const mine = await feed(follower);
    expect(mine.body.data.map((x: any) => x.id).sort()).toEqual([...seen].sort());
    expect(mine.body.unread_count).toBe(seen.length);
    expect((await feed(donor)).body.unread_count).toBe(seen.length + hidden.length);
    // The same rule decides who is notified.
    await t.runJobs();
    await t.runJobs();
    const notified = async (userId: string) =>
      (await t.ctx.db('notifications').where({ user_id: userId, type: 'campaign_update' }).select(t.ctx.db.raw("metadata->>'update_id' as id"))).map((r: any) => r.id).sort();
    expect(await notified(follower.id)).toEqual([...seen].sort());
    expect(await notified(donor.id)).toEqual([...seen, ...hidden].sort());
  });

  it("when the caller follows themself through a gift to their own campaign, then their own updates are left out", async () => {
    const { holder, campaign } = await holderWithCampaign();
    await createGift(t.ctx.db, { fundraiserId: campaign.id, donorUserId: holder.id, paidAt: ago(60_000) });
    await postUpdate(campaign.id, holder.id);
    expect((await feed(holder)).body).toMatchObject({ unread_count: 0, data: [] });
  });

  it('when an update predates the follow, then it is listed as read (read_at = the follow start) and not counted', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const old = await postUpdate(campaign.id, holder.id, { at: ago(3_600_000) });
    const me = await createUser(t.ctx.db);
    await follow(me, holder);
    const fresh = await postUpdate(campaign.id, holder.id);
    const r = await feed(me);
    expect(r.body.unread_count).toBe(1);
    expect(r.body.data.map((i: any) => [i.id, i.is_read])).toEqual([[fresh.id, false], [old.id, true]]);
    expect(r.body.data[1].read_at).not.toBeNull();
  });

  it('when the follower unfollows and follows again, then updates from the first follow read as read (the start moved)', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const me = await createUser(t.ctx.db);
    await follow(me, holder);
    await postUpdate(campaign.id, holder.id);
    expect((await feed(me)).body.unread_count).toBe(1);
    expect((await request(t.app).delete(`${API}/subscriptions/user/${holder.id}`).set(await as(me))).status).toBe(204);
    expect((await feed(me)).body).toMatchObject({ unread_count: 0, data: [] });
    await new Promise((r) => setTimeout(r, 5));
    await follow(me, holder);
    const r = await feed(me);
    expect(r.body.unread_count).toBe(0);
    expect(r.body.data).toHaveLength(1);
    expect(r.body.data[0].is_read).toBe(true);
  });

  it('when pages are walked with next_cursor, then every item comes once, newest first, and the last page has null', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const other = await createFundraiser(t.ctx.db, holder.id);
    const me = await createUser(t.ctx.db);
    await follow(me, holder);
    const at = new Date(Date.now() + 1000);
    const ids: string[] = [];
    // Same timestamps across campaigns: the id breaks ties, so no item is skipped or repeated.
    for (let i = 0; i < 7; i += 1) ids.push((await postUpdate(i % 2 ? campaign.id : other.id, holder.id, { at: new Date(at.getTime() + Math.floor(i / 2)) })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: request.Response = await feed(me, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.data.map((i: any) => i.id));
      cursor = r.body.next_cursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(ids));
  });

  it('when the cursor is forged, tampered with or another user\'s, then 400 Invalid cursor', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const me = await createUser(t.ctx.db);
    const you = await createUser(t.ctx.db);
    await follow(me, holder);
    await follow(you, holder);
    await postUpdate(campaign.id, holder.id);
    await postUpdate(campaign.id, holder.id);
    const next = (await feed(me, '?limit=1')).body.next_cursor as string;
    expect(next).toEqual(expect.any(String));
    const forged = Buffer.from(JSON.stringify({ u: me.id, t: '2030-01-01T00:00:00.000000Z', i: campaign.id })).toString('base64url') + '.AAAA';
    const [body, mac] = next.split('.');
    const tampered = `${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), t: '2099-01-01T00:00:00.000000Z' })).toString('base64url')}.${mac}`;
    for (const c of ['garbage', forged, tampered]) {
      const r = await feed(me, `?cursor=${encodeURIComponent(c)}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('Invalid cursor');
    }
    expect((await feed(you, `?cursor=${encodeURIComponent(next)}`)).body.error).toBe('Invalid cursor');
    expect((await feed(me, `?cursor=${encodeURIComponent(next)}`)).status).toBe(200);
  });

  it('when lang names a locale with a stored translation, then the item carries it; otherwise the original', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const me = await createUser(t.ctx.db);
    await follow(me, holder);
    const u = await postUpdate(campaign.id, holder.id, { title: 'Hello', body: 'Original text' });
    await t.ctx.db('update_translations').insert({ update_id: u.id, lang: 'es', title: 'Hola', body: 'Texto traducido', source: 'machine' });
    expect((await feed(me, '?lang=es')).body.data[0]).toMatchObject({ title: 'Hola', body: 'Texto traducido', language: 'en' });
    expect((await feed(me, '?lang=ru')).body.data[0]).toMatchObject({ title: 'Hello', body: 'Original text' });
    expect((await feed(me, '?lang=xx')).body.data[0]).toMatchObject({ title: 'Hello' });
  });

  it('when limit is above 50, then 50 items at most are asked for; non-numeric is 20', async () => {
    const me = await createUser(t.ctx.db);
    expect((await feed(me, '?limit=500')).status).toBe(200);
    expect((await feed(me, '?limit=abc')).status).toBe(200);
  });

  it('when an update is withdrawn, then it leaves the feed and the count', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const me = await createUser(t.ctx.db);
    await follow(me, holder);
    const u = await postUpdate(campaign.id, holder.id);
    await t.ctx.db('project_updates').where({ id: u.id }).update({ deleted_at: new Date() });
    expect((await feed(me)).body).toMatchObject({ unread_count: 0, data: [] });
  });
});

describe('PUT /me/campaign-updates/{id}/read and /read-all', () => {
  it('when one update is marked read, then updated 1 and the count drops; again, updated 0', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const me = await createUser(t.ctx.db);
    await follow(me, holder);
    const a = await postUpdate(campaign.id, holder.id);
    await postUpdate(campaign.id, holder.id);
    const put = async () => request(t.app).put(`${API}/me/campaign-updates/${a.id}/read`).set(await as(me));
    const r1 = await put();
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ success: true, updated: 1, unread_count: 1 });
    expect((await put()).body).toEqual({ success: true, updated: 0, unread_count: 1 });
    const item = (await feed(me)).body.data.find((i: any) => i.id === a.id);
    expect(item.is_read).toBe(true);
    expect(item.read_at).toEqual(expect.any(String));
  });

  it('when the update is unknown, deleted or not in the caller\'s feed, then 404; a non-uuid id, 400', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const me = await createUser(t.ctx.db);
    const notMine = await postUpdate(campaign.id, holder.id);
    const h = await as(me);
    expect((await request(t.app).put(`${API}/me/campaign-updates/${notMine.id}/read`).set(h)).status).toBe(404);
    expect((await request(t.app).put(`${API}/me/campaign-updates/00000000-0000-4000-8000-000000000000/read`).set(h)).status).toBe(404);
    await follow(me, holder);
    const gone = await postUpdate(campaign.id, holder.id);
    await t.ctx.db('project_updates').where({ id: gone.id }).update({ deleted_at: new Date() });
    expect((await request(t.app).put(`${API}/me/campaign-updates/${gone.id}/read`).set(h)).status).toBe(404);
    expect((await request(t.app).put(`${API}/me/campaign-updates/not-a-uuid/read`).set(h)).status).toBe(400);
  });

  it('when read-all has until, then only updates posted at or before it are marked; without, all', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const me = await createUser(t.ctx.db);
    await follow(me, holder);
    const t0 = Date.now() + 10_000;
    await postUpdate(campaign.id, holder.id, { at: new Date(t0) });
    await postUpdate(campaign.id, holder.id, { at: new Date(t0 + 1000) });
    await postUpdate(campaign.id, holder.id, { at: new Date(t0 + 2000) });
    const h = await as(me);
    const r = await request(t.app).put(`${API}/me/campaign-updates/read-all`).set(h).send({ until: new Date(t0 + 1000).toISOString() });
    expect(r.body).toEqual({ success: true, updated: 2, unread_count: 1 });
    const all = await request(t.app).put(`${API}/me/campaign-updates/read-all`).set(h);
    expect(all.body).toEqual({ success: true, updated: 1, unread_count: 0 });
    expect((await request(t.app).put(`${API}/me/campaign-updates/read-all`).set(h).send({ until: 'yesterday' })).status).toBe(400);
  });

  it('when read-all has until = the newest item\'s created_at as printed (microseconds stored), then that item is marked too', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const me = await createUser(t.ctx.db);
    await follow(me, holder);
    const u = await postUpdate(campaign.id, holder.id, { at: new Date(Date.now() + 5_000) });
    await t.ctx.db('project_updates').where({ id: u.id }).update({ created_at: t.ctx.db.raw("created_at + interval '456 microseconds'") });
    const newest = (await feed(me)).body.data[0];
    expect(newest.id).toBe(u.id);
    const r = await request(t.app).put(`${API}/me/campaign-updates/read-all`).set(await as(me)).send({ until: newest.created_at });
    expect(r.body).toEqual({ success: true, updated: 1, unread_count: 0 });
  });

  it('when the feed has unread items, then GET /notifications shows the same count as updatesUnreadCount', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const me = await createUser(t.ctx.db);
    await follow(me, holder);
    await postUpdate(campaign.id, holder.id);
    await postUpdate(campaign.id, holder.id);
    const n = await request(t.app).get(`${API}/notifications`).set(await as(me));
    expect(n.body.updatesUnreadCount).toBe(2);
    expect((await feed(me)).body.unread_count).toBe(2);
  });
});

describe('update.posted notifications', () => {
  it('when an update is posted, then each connected user (follower, donor) gets one campaign_update notification in their language; the holder none', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const follower = await createUser(t.ctx.db);
    const donor = await createUser(t.ctx.db);
    await t.ctx.db('users').where({ id: donor.id }).update({ locale: 'es' });
    await follow(follower, holder);
    await createGift(t.ctx.db, { fundraiserId: campaign.id, donorUserId: donor.id, paidAt: ago(60_000) });
    // The donor also follows: still one notification.
    await follow(donor, holder);
    const u = await postUpdate(campaign.id, holder.id, { title: 'Big <news>' });
    await t.runJobs();
    await t.runJobs();
    const rows = await t.ctx.db('notifications').where({ type: 'campaign_update' }).whereRaw("metadata->>'update_id' = ?", [u.id]);
    expect(rows.map((r) => r.user_id).sort()).toEqual([follower.id, donor.id].sort());
    const es = rows.find((r) => r.user_id === donor.id)!;
    expect(es.title).toBe('Nueva actualización de la campaña');
    expect(es.message).toContain('Big &lt;news&gt;');
    const followerList = await request(t.app).get(`${API}/notifications`).set(await as(follower));
    expect(followerList.body.notifications.map((n: any) => n.type)).toContain('campaign_update');
  });

  it('when someone started following after the update was posted, then they get no notification for it', async () => {
    const { holder, campaign } = await holderWithCampaign();
    const late = await createUser(t.ctx.db);
    const u = await postUpdate(campaign.id, holder.id, { at: ago(60_000) });
    await follow(late, holder);
    await t.runJobs();
    expect(await t.ctx.db('notifications').where({ user_id: late.id, type: 'campaign_update' }).whereRaw("metadata->>'update_id' = ?", [u.id])).toHaveLength(0);
  });
});
