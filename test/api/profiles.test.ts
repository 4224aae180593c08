import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const db = () => testDb();

async function slugOf(userId: string): Promise<string> {
  return (await db()('users').where({ id: userId }).first('profile_slug')).profile_slug;
}

describe('GET /profiles/{idOrSlug}', () => {
  it('when a public profile is read by uuid or slug, then both answer the same public fields and never an email', async () => {
    const u = await createUser(db(), { name: 'Ada', roles: ['user', 'ambassador', 'admin'] });
    const byId = await request(t.app).get(`/api/v1/profiles/${u.id}`).expect(200);
    const bySlug = await request(t.app).get(`/api/v1/profiles/${await slugOf(u.id)}`).expect(200);
    expect(bySlug.body).toEqual(byId.body);
    expect(Object.keys(byId.body.data).sort()).toEqual(['avatar', 'bio', 'created_at', 'id', 'is_private', 'name', 'roles_public', 'slug']);
    expect(byId.body.data.roles_public).toEqual(['ambassador']);
    expect(JSON.stringify(byId.body)).not.toContain(u.email);
  });

  it('when a profile is private, then others (guest and signed-in) get 404 and the owner reads it', async () => {
    const u = await createUser(db());
    await db()('users').where({ id: u.id }).update({ profile_private: true });
    await request(t.app).get(`/api/v1/profiles/${u.id}`).expect(404);
    const other = await createUser(db());
    await request(t.app).get(`/api/v1/profiles/${u.id}`).set(await authHeaders(t, other)).expect(404);
    const own = await request(t.app).get(`/api/v1/profiles/${u.id}`).set(await authHeaders(t, u)).expect(200);
    expect(own.body.data.is_private).toBe(true);
  });

  it('when the account is banned, unknown or the value is neither uuid nor slug, then 404 in the error shape', async () => {
    const u = await createUser(db(), { status: 'banned' });
    await request(t.app).get(`/api/v1/profiles/${u.id}`).expect(404);
    await request(t.app).get('/api/v1/profiles/00000000-0000-4000-8000-000000000000').expect(404);
    const r = await request(t.app).get('/api/v1/profiles/%E2%9C%93%20x').expect(404);
    expect(r.body).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
  });
});

describe('PATCH /users/me/profile', () => {
  it('when name, bio, avatar, slug and privacy are set, then the profile answers them and the slug reads it', async () => {
    const u = await createUser(db());
    const h = await authHeaders(t, u);
    const r = await request(t.app)
      .patch('/api/v1/users/me/profile')
      .set(h)
      .send({ name: ' <b>Ada</b> L ', bio: '<script>x()</script>Hello &lt;img src=x onerror=alert(1)&gt;', avatar: 'https://img.test/a.png', slug: ' Ada-Lovelace ' })
      .expect(200);
    expect(r.body.data).toEqual(expect.objectContaining({ name: 'Ada L', slug: 'ada-lovelace', avatar: 'https://img.test/a.png' }));
    expect(r.body.data.bio).not.toMatch(/<|>/);
    await request(t.app).get('/api/v1/profiles/ada-lovelace').expect(200);
  });

  it('when the slug breaks the pattern or is reserved, then 400; when another account holds it, then 409', async () => {
    const u = await createUser(db());
    const h = await authHeaders(t, u);
    for (const slug of ['ab', '-abc', 'a_bc', 'x'.repeat(41), 'ünï']) {
      await request(t.app).patch('/api/v1/users/me/profile').set(h).send({ slug }).expect(400);
    }
    const reserved = await request(t.app).patch('/api/v1/users/me/profile').set(h).send({ slug: 'admin' }).expect(400);
    expect(reserved.body.code).toBe('SLUG_RESERVED');
    const other = await createUser(db());
    const taken = await request(t.app).patch('/api/v1/users/me/profile').set(h).send({ slug: await slugOf(other.id) }).expect(409);
    expect(taken.body.code).toBe('SLUG_TAKEN');
  });

  it('when fields are out of bounds or of the wrong type, then 400 with details and nothing changes', async () => {
    const u = await createUser(db(), { name: 'Keep' });
    const h = await authHeaders(t, u);
    for (const body of [{ name: 'x'.repeat(101) }, { name: '<p></p>' }, { bio: 'y'.repeat(1001) }, { avatar: 'javascript:alert(1)' }, { avatar: 'https://a.test/' + 'x'.repeat(2100) }, { is_private: 'yes' }, { name: 5 }]) {
      const r = await request(t.app).patch('/api/v1/users/me/profile').set(h).send(body).expect(400);
      expect(r.body).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
    }
    expect((await db()('users').where({ id: u.id }).first('name')).name).toBe('Keep');
  });

  it('when no credential is sent, then 401', async () => {
    await request(t.app).patch('/api/v1/users/me/profile').send({ name: 'x' }).expect(401);
  });
});

describe('GET /profiles/slug-availability', () => {
  it('when slugs are free, invalid, reserved, taken or your own, then each answers its reason', async () => {
    const u = await createUser(db());
    const mine = await slugOf(u.id);
    const check = async (slug: string, h: Record<string, string> = {}) =>
      (await request(t.app).get('/api/v1/profiles/slug-availability').query({ slug }).set(h).expect(200)).body.data;
    expect(await check('Free-Slug-123')).toEqual({ slug: 'free-slug-123', available: true, reason: null });
    expect(await check('a')).toEqual({ slug: 'a', available: false, reason: 'invalid' });
    expect(await check('settings')).toEqual({ slug: 'settings', available: false, reason: 'reserved' });
    expect(await check(mine)).toEqual({ slug: mine, available: false, reason: 'taken' });
    expect(await check(mine, await authHeaders(t, u))).toEqual({ slug: mine, available: true, reason: null });
  });

  it('when slug is missing, then 400', async () => {
    await request(t.app).get('/api/v1/profiles/slug-availability').expect(400);
  });
});

describe('GET /profiles/{idOrSlug}/badges', () => {
  it('when the user earned badges, then they come bare, newest first, and an anonymous gift earns none', async () => {
    const u = await createUser(db(), { roles: ['user', 'ambassador'] });
    await db()('users').where({ id: u.id }).update({ created_at: new Date('2026-01-01T00:00:00Z'), email_verified_at: new Date('2026-02-01T00:00:00Z') });
    const owner = await createUser(db());
    const f = await createFundraiser(db(), owner.id);
    await createGift(db(), { fundraiserId: f.id, donorUserId: u.id, anonymous: true, paidAt: new Date('2026-03-01T00:00:00Z') });
    let r = await request(t.app).get(`/api/v1/profiles/${u.id}/badges`).expect(200);
    expect(Object.keys(r.body)).toEqual(['badges']);
    expect(r.body.badges.map((b: { code: string }) => b.code)).toEqual(['verified_email', 'ambassador']);
    await createGift(db(), { fundraiserId: f.id, donorUserId: u.id, paidAt: new Date('2026-04-01T00:00:00Z') });
    await createFundraiser(db(), u.id, { approved_at: new Date('2026-05-01T00:00:00Z') } as never);
    r = await request(t.app).get(`/api/v1/profiles/${u.id}/badges`).query({ lang: 'es' }).expect(200);
    expect(r.body.badges.map((b: { code: string }) => b.code)).toEqual(['first_campaign', 'first_gift', 'verified_email', 'ambassador']);
    expect(r.body.badges[1]).toEqual({ code: 'first_gift', label: 'Primera donación', earned_at: '2026-04-01T00:00:00.000Z' });
  });

  it('when the profile is private, then others get an empty list and the owner gets the badges', async () => {
    const u = await createUser(db());
    await db()('users').where({ id: u.id }).update({ profile_private: true });
    expect((await request(t.app).get(`/api/v1/profiles/${u.id}/badges`).expect(200)).body).toEqual({ badges: [] });
    const own = await request(t.app).get(`/api/v1/profiles/${u.id}/badges`).set(await authHeaders(t, u)).expect(200);
    expect(own.body.badges.length).toBeGreaterThan(0);
    await request(t.app).get('/api/v1/profiles/no-such-profile-x/badges').expect(404);
  });
});

describe('GET /profiles/{idOrSlug}/campaigns', () => {
  async function scene() {
    const u = await createUser(db());
    const other = await createUser(db());
    const live = await createFundraiser(db(), u.id, { status: 'active' });
    const ended = await createFundraiser(db(), u.id, { status: 'ended' });
    const draft = await createFundraiser(db(), u.id, { status: 'draft' });
    const pending = await createFundraiser(db(), u.id, { status: 'pending' });
    const paused = await createFundraiser(db(), u.id, { status: 'paused' });
    const unlisted = await createFundraiser(db(), u.id, { visibility: 'unlisted' });
    const priv = await createFundraiser(db(), u.id, { visibility: 'private' });
    const rejected = await createFundraiser(db(), u.id, { status: 'rejected' });
    const deleted = await createFundraiser(db(), u.id, { deleted_at: new Date() } as never);
    const endorsed = await createFundraiser(db(), other.id);
    const endorsedDraft = await createFundraiser(db(), other.id, { status: 'draft' });
    await db()('endorsements').insert([{ fundraiser_id: endorsed.id, user_id: u.id }, { fundraiser_id: endorsedDraft.id, user_id: u.id }]);
    return { u, live, ended, draft, pending, paused, unlisted, priv, rejected, deleted, endorsed };
  }
  const ids = (r: request.Response) => new Set(r.body.data.map((c: { id: string }) => c.id));

  it('when a visitor reads, then only public active or ended own campaigns and public endorsed ones come, flagged', async () => {
    const s = await scene();
    const r = await request(t.app).get(`/api/v1/profiles/${s.u.id}/campaigns`).expect(200);
    expect(ids(r)).toEqual(new Set([s.live.id, s.ended.id, s.endorsed.id]));
    for (const c of r.body.data) expect(c.is_endorsed).toBe(c.id === s.endorsed.id);
  });

  it('when the owner reads, then drafts, pending, paused, unlisted and private come too, never rejected or deleted', async () => {
    const s = await scene();
    const r = await request(t.app).get(`/api/v1/profiles/${s.u.id}/campaigns`).set(await authHeaders(t, s.u)).expect(200);
    expect(ids(r)).toEqual(new Set([s.live.id, s.ended.id, s.draft.id, s.pending.id, s.paused.id, s.unlisted.id, s.priv.id, s.endorsed.id]));
    const limited = await request(t.app).get(`/api/v1/profiles/${s.u.id}/campaigns?limit=2`).set(await authHeaders(t, s.u)).expect(200);
    expect(limited.body.data).toHaveLength(2);
  });

  it('when the profile is private, then others get an empty list and the owner the list', async () => {
    const s = await scene();
    await db()('users').where({ id: s.u.id }).update({ profile_private: true });
    expect((await request(t.app).get(`/api/v1/profiles/${s.u.id}/campaigns`).expect(200)).body).toEqual({ data: [] });
    const own = await request(t.app).get(`/api/v1/profiles/${s.u.id}/campaigns`).set(await authHeaders(t, s.u)).expect(200);
    expect(own.body.data.length).toBe(8);
  });

  it('when lang names a stored translation, then the title follows it', async () => {
    const u = await createUser(db());
    const f = await createFundraiser(db(), u.id, { title: 'Water' });
    await db()('fundraiser_translations').insert({ fundraiser_id: f.id, lang: 'es', title: 'Agua', summary: 'Resumen', story_html: '<p>x</p>' });
    const r = await request(t.app).get(`/api/v1/profiles/${u.id}/campaigns?lang=es`).expect(200);
    expect(r.body.data[0].title).toBe('Agua');
  });
});
