import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const db = testDb();

const ambassador = (name: string, over: { status?: string } = {}) => createUser(db, { name, roles: ['user', 'ambassador'], ...over });
const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

describe('GET /ambassadors and /ambassadors/impact', () => {
  let big: TestUser;
  let small: TestUser;
  let referrer: TestUser;
  let banned: TestUser;
  let hidden: TestUser;
  let plain: TestUser;

  beforeAll(async () => {
    big = await ambassador('Amb Big');
    small = await ambassador('Amb Small');
    referrer = await ambassador('Amb Referrer');
    banned = await ambassador('Amb Banned', { status: 'banned' });
    hidden = await ambassador('Amb Hidden');
    await db('users').where({ id: hidden.id }).update({ profile_private: true });
    plain = await createUser(db, { name: 'Not An Ambassador' });
    // big raises 5,000 and gives 1,000; small gives 300; referrer drives 2,000 through a click.
    const campaign = await createFundraiser(db, big.id);
    const other = await createFundraiser(db, plain.id);
    await createGift(db, { fundraiserId: campaign.id, donorUserId: plain.id, amount: 5000 });
    await createGift(db, { fundraiserId: other.id, donorUserId: big.id, amount: 1000 });
    await createGift(db, { fundraiserId: other.id, donorUserId: small.id, amount: 300 });
    await createGift(db, { fundraiserId: other.id, donorUserId: banned.id, amount: 99_999 });
    const slug = (await db('users').where({ id: referrer.id }).first('profile_slug')).profile_slug;
    const donor = await createUser(db);
    await request(t.app).post('/api/v1/referrals/clicks').set(await authHeaders(t, donor)).send({ fundraiser_id: other.id, ref: slug }).expect(204);
    await createGift(db, { fundraiserId: other.id, donorUserId: donor.id, amount: 2000 });
    await t.runJobs();
  });

  it('when the directory is read, then listed ambassadors are paged by name, never banned, private or non-ambassadors', async () => {
    const res = await request(t.app).get('/api/v1/ambassadors?limit=2&offset=0').expect(200);
    expect(res.body.pagination).toEqual({ limit: 2, offset: 0, total: 3 });
    expect(res.body.data.map((a: { name: string }) => a.name)).toEqual(['Amb Big', 'Amb Referrer']);
    const next = await request(t.app).get('/api/v1/ambassadors?limit=2&offset=2').expect(200);
    expect(ids(next.body.data)).toEqual([small.id]);
    expect(next.body.data[0]).toEqual({ id: small.id, name: 'Amb Small', slug: expect.any(String), avatar: null, bio: null });
    const all = JSON.stringify([res.body, next.body]);
    for (const u of [banned, hidden, plain]) expect(all).not.toContain(u.id);
  });

  it('when the impact rail is read, then ambassadors rank by raised + given + driven with a total', async () => {
    const res = await request(t.app).get('/api/v1/ambassadors/impact?lang=es').expect(200);
    expect(res.body.total).toBe(3);
    expect(ids(res.body.data)).toEqual([big.id, referrer.id, small.id]);
    expect(res.body.data[0]).toMatchObject({ raised_cents: 5000, given_cents: 1000, driven_cents: 0, impact_cents: 6000 });
    expect(res.body.data[1]).toMatchObject({ raised_cents: 0, given_cents: 0, driven_cents: 2000, impact_cents: 2000 });
    expect(res.body.data[2]).toMatchObject({ impact_cents: 300 });
    expect(JSON.stringify(res.body)).not.toContain(banned.id);
  });

  it('when more than 100 ambassadors exist, then the rail lists 100 and total counts them all', async () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ email: `rail-${i}-${Date.now()}@example.test`, name: `Rail ${i}`, roles: ['user', 'ambassador'] }));
    await db('users').insert(rows);
    const res = await request(t.app).get('/api/v1/ambassadors/impact').expect(200);
    expect(res.body.data).toHaveLength(100);
    expect(res.body.total).toBe(103);
    expect(res.body.data[0].id).toBe(big.id);
    await db('users').whereIn('email', rows.map((r) => r.email)).delete();
  });
});

describe('POST /ambassador-applications', () => {
  it('when a valid application is sent, then 201 received and the text is stored without markup', async () => {
    const res = await request(t.app)
      .post('/api/v1/ambassador-applications')
      .send({ name: '<b>Ada</b> Lovelace', email: 'Ada@Example.test', message: 'I <script>x()</script>love this', links: ['https://example.test/ada'] })
      .expect(201);
    expect(res.body).toEqual({ data: { id: expect.any(String), status: 'received' } });
    const row = await db('ambassador_applications').where({ id: res.body.data.id }).first();
    expect(row).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.test', message: 'I love this', links: ['https://example.test/ada'], user_id: null });
  });

  it('when a signed-in user applies, then the application names the account', async () => {
    const u = await createUser(db);
    const res = await request(t.app).post('/api/v1/ambassador-applications').set(await authHeaders(t, u)).send({ name: 'Me', email: u.email, message: 'Hello' }).expect(201);
    expect((await db('ambassador_applications').where({ id: res.body.data.id }).first()).user_id).toBe(u.id);
  });

  it.each([
    ['no name', { email: 'a@b.test', message: 'x' }],
    ['a bad email', { name: 'A', email: 'nope', message: 'x' }],
    ['an empty message', { name: 'A', email: 'a@b.test', message: '   ' }],
    ['a message of markup only', { name: 'A', email: 'a@b.test', message: '<img src=x>' }],
    ['a javascript: link', { name: 'A', email: 'a@b.test', message: 'x', links: ['javascript:alert(1)'] }],
    ['six links', { name: 'A', email: 'a@b.test', message: 'x', links: Array(6).fill('https://a.test') }],
  ])('when the body has %s, then 400', async (_what, body) => {
    const fresh = createTestApp();
    const res = await request(fresh.app).post('/api/v1/ambassador-applications').send(body).expect(400);
    expect(res.body.error).toEqual(expect.any(String));
    expect(res.body.message).toEqual(expect.any(String));
  });

  it('when an IP sends a sixth application in a minute, then 429 from the strict limiter', async () => {
    const fresh = createTestApp();
    const body = { name: 'A', email: 'a@b.test', message: 'x' };
    for (let i = 0; i < 5; i += 1) await request(fresh.app).post('/api/v1/ambassador-applications').send(body).expect(201);
    const res = await request(fresh.app).post('/api/v1/ambassador-applications').send(body).expect(429);
    expect(res.body).toMatchObject({ error: 'Rate limit exceeded for sensitive operation.', retryAfter: 60 });
  });
});

describe('GET /platform/team', () => {
  it('when staff and admins have public slugged profiles, then they are listed admins first with a translated title; others never', async () => {
    const admin = await createUser(db, { name: 'Zed Admin', roles: ['user', 'admin'] });
    const staff = await createUser(db, { name: 'Amy Staff', roles: ['user', 'staff'] });
    const noSlug = await createUser(db, { name: 'No Slug', roles: ['user', 'staff'] });
    await db('users').where({ id: noSlug.id }).update({ profile_slug: null });
    const priv = await createUser(db, { name: 'Private Staff', roles: ['user', 'staff'] });
    await db('users').where({ id: priv.id }).update({ profile_private: true });
    const gone = await createUser(db, { name: 'Suspended Staff', roles: ['user', 'staff'], status: 'suspended' });
    const res = await request(t.app).get('/api/v1/platform/team?lang=es').expect(200);
    expect(ids(res.body.data)).toEqual([admin.id, staff.id]);
    expect(res.body.data[0]).toEqual({ id: admin.id, name: 'Zed Admin', slug: expect.any(String), avatar: null, title: 'Administrador' });
    expect(res.body.data[1].title).toBe('Miembro del equipo');
    for (const u of [noSlug, priv, gone]) expect(JSON.stringify(res.body)).not.toContain(u.id);
    const ru = await request(t.app).get('/api/v1/platform/team').set('Accept-Language', 'ru').expect(200);
    expect(ru.body.data[1].title).toBe('Сотрудник');
  });

  it('when there are more than 48 staff, then 48 are listed', async () => {
    await db('users').insert(Array.from({ length: 50 }, (_, i) => ({ email: `staff-${i}-${Date.now()}@example.test`, name: `S ${i}`, roles: ['user', 'staff'], profile_slug: `staff-many-${i}` })));
    expect((await request(t.app).get('/api/v1/platform/team').expect(200)).body.data).toHaveLength(48);
  });
});
