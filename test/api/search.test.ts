import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const db = testDb();
const search = (query: Record<string, unknown>, headers: Record<string, string> = {}) =>
  request(t.app).get('/api/v1/search').query(query).set(headers);

/** A unique word so each test finds only its own rows. */
const word = () => `zq${randomBytes(4).toString('hex')}`;

/** A named guest gift and the key of the guest's donor page (donor_keys, as the leaderboard module keeps it). */
async function guestGift(fundraiserId: string, name: string, opts: { anonymous?: boolean; email?: string } = {}) {
  const email = opts.email ?? `guest-${randomUUID().slice(0, 8)}@example.test`;
  const g = await createGift(db, { fundraiserId, donorEmail: email, amount: 1000, anonymous: opts.anonymous });
  await db('donations').where({ id: g.id }).update({ donor_name: name });
  await db('donor_keys').insert({ kind: 'guest', key: randomBytes(10).toString('hex'), identity: email.toLowerCase() }).onConflict(['kind', 'identity']).ignore();
  return (await db('donor_keys').where({ kind: 'guest', identity: email.toLowerCase() }).first('key')).key as string;
}

describe('GET /search', () => {
  it('when q has fewer than 2 characters, then every list is empty', async () => {
    for (const q of [undefined, '', 'a', ' b ']) {
      const res = await search(q === undefined ? {} : { q }).expect(200);
      expect(res.body).toEqual({ data: { campaigns: [], users: [], orgs: [], donors: [] }, query: (q ?? '').trim() });
    }
  });

  it('when q matches a campaign, a public person, an organization and a guest donor, then scope all lists each kind', async () => {
    const w = word();
    const owner = await createUser(db, { name: `Person ${w}` });
    const f = await createFundraiser(db, owner.id, { title: `Campaign ${w}` });
    const key = await guestGift(f.id, `Donor ${w}`);
    const orgId = randomUUID();
    await db('organizations').insert({ id: orgId, slug: `org-${w}`, name: `Org ${w}` });
    const res = await search({ q: `  ${w}  ` }).expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.body.query).toBe(w);
    expect(res.body.data.campaigns.map((c: { id: string }) => c.id)).toEqual([f.id]);
    expect(res.body.data.campaigns[0]).toMatchObject({ title: `Campaign ${w}`, slug: f.slug, total_raised_cents: 1000 });
    expect(res.body.data.users).toEqual([{ id: owner.id, name: `Person ${w}`, slug: expect.any(String), avatar: null }]);
    expect(res.body.data.orgs).toEqual([{ id: orgId, slug: `org-${w}`, name: `Org ${w}`, logo: null, verified: false }]);
    expect(res.body.data.donors).toEqual([{ kind: 'guest', key, name: `Donor ${w}` }]);
  });

  it('when a scope is named, then only that list is filled and the others are empty arrays', async () => {
    const w = word();
    const owner = await createUser(db, { name: `Scoped ${w}` });
    const f = await createFundraiser(db, owner.id, { title: `Scoped ${w}` });
    await guestGift(f.id, `Scoped ${w}`);
    const only = async (scope: string) => (await search({ q: w, scope }).expect(200)).body.data;
    expect(await only('campaigns')).toMatchObject({ users: [], orgs: [], donors: [] });
    expect((await only('campaigns')).campaigns).toHaveLength(1);
    expect(await only('users')).toMatchObject({ campaigns: [], orgs: [], donors: [] });
    expect((await only('users')).users).toHaveLength(1);
    expect(await only('donors')).toMatchObject({ campaigns: [], users: [], orgs: [] });
    expect((await only('donors')).donors).toHaveLength(1);
    expect(await only('orgs')).toEqual({ campaigns: [], users: [], orgs: [], donors: [] });
  });

  it('when scope is not one of the five, then 400', async () => {
    const res = await search({ q: 'water', scope: 'everything' }).expect(400);
    expect(res.body.error).toBe('Validation failed');
  });

  it('when a profile is private or the account is not active, then the person is never listed', async () => {
    const w = word();
    const priv = await createUser(db, { name: `Hidden ${w}` });
    await db('users').where({ id: priv.id }).update({ profile_private: true });
    await createUser(db, { name: `Banned ${w}`, status: 'banned' });
    const pub = await createUser(db, { name: `Shown ${w}` });
    const res = await search({ q: w, scope: 'users' }, await authHeaders(t, pub)).expect(200);
    expect(res.body.data.users.map((u: { id: string }) => u.id)).toEqual([pub.id]);
    expect(JSON.stringify(res.body)).not.toContain('Hidden');
    // Not by slug either.
    const slug = (await db('users').where({ id: priv.id }).first('profile_slug')).profile_slug;
    expect((await search({ q: slug, scope: 'users' }).expect(200)).body.data.users).toEqual([]);
  });

  it('when a guest donor gave anonymously, then searching that name lists no donor', async () => {
    const w = word();
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    await guestGift(f.id, `Secret ${w}`, { anonymous: true });
    const res = await search({ q: w }).expect(200);
    expect(res.body.data.donors).toEqual([]);
    expect(JSON.stringify(res.body)).not.toContain('Secret');
  });

  it('when the gift went to a private campaign, then the donor is not found through it', async () => {
    const w = word();
    const f = await createFundraiser(db, (await createUser(db)).id, { visibility: 'private' });
    await guestGift(f.id, `Quiet ${w}`);
    expect((await search({ q: w, scope: 'donors' }).expect(200)).body.data.donors).toEqual([]);
  });

  it('when offset is above 0, then no donor rows come, while other lists page on', async () => {
    const w = word();
    const f = await createFundraiser(db, (await createUser(db)).id);
    await guestGift(f.id, `Pager ${w} one`);
    await guestGift(f.id, `Pager ${w} two`);
    await createUser(db, { name: `Pager ${w} a` });
    await createUser(db, { name: `Pager ${w} b` });
    const first = await search({ q: w, limit: 1, offset: 0 }).expect(200);
    expect(first.body.data.donors).toHaveLength(1);
    expect(first.body.data.users).toHaveLength(1);
    const second = await search({ q: w, limit: 1, offset: 1 }).expect(200);
    expect(second.body.data.donors).toEqual([]);
    expect(second.body.data.users).toHaveLength(1);
    expect(second.body.data.users[0].id).not.toBe(first.body.data.users[0].id);
  });

  it('when q has no 3 consecutive letters or digits, then donor names are not matched, though people are', async () => {
    const f = await createFundraiser(db, (await createUser(db)).id);
    const tag = randomBytes(3).toString('hex');
    await guestGift(f.id, `Jo ${tag}`);
    await createUser(db, { name: `Jo ${tag}` });
    const res = await search({ q: 'Jo' }).expect(200);
    expect(res.body.data.donors).toEqual([]);
    expect(res.body.data.users.length).toBeGreaterThan(0);
    const signedIn = await search({ q: 'o.' }, await authHeaders(t, await createUser(db))).expect(200);
    expect(signedIn.body.data.donors).toEqual([]);
    // With a run of three it matches.
    expect((await search({ q: `Jo ${tag}` }).expect(200)).body.data.donors.length).toBeGreaterThan(0);
  });

  it('when q contains LIKE wildcards, then they are matched literally', async () => {
    const w = word();
    await createUser(db, { name: `Percent ${w}` });
    expect((await search({ q: '%%', scope: 'users' }).expect(200)).body.data.users).toEqual([]);
    expect((await search({ q: `${w}_`, scope: 'users' }).expect(200)).body.data.users).toEqual([]);
  });

  it('when limit is above 100, then at most 100 are listed; when it is not a number, then 20', async () => {
    const w = word();
    for (let i = 0; i < 22; i += 1) await createUser(db, { name: `Many ${w} ${i}` });
    expect((await search({ q: w, scope: 'users', limit: 'abc' }).expect(200)).body.data.users).toHaveLength(20);
    expect((await search({ q: w, scope: 'users', limit: 500 }).expect(200)).body.data.users).toHaveLength(22);
  });

  it('when lang names a locale with a stored translation, then campaign cards are translated', async () => {
    const w = word();
    const f = await createFundraiser(db, (await createUser(db)).id, { title: `Water ${w}` });
    await db('fundraiser_translations').insert({ fundraiser_id: f.id, lang: 'es', title: `Agua ${w}` });
    const res = await search({ q: w, scope: 'campaigns', lang: 'es' }).expect(200);
    expect(res.body.data.campaigns[0].title).toBe(`Agua ${w}`);
  });

  it('when campaigns are drafts or private, then they are not found', async () => {
    const w = word();
    const owner = await createUser(db);
    await createFundraiser(db, owner.id, { title: `Draft ${w}`, status: 'draft' });
    await createFundraiser(db, owner.id, { title: `Private ${w}`, visibility: 'private' });
    const res = await search({ q: w, scope: 'campaigns' }, await authHeaders(t, owner)).expect(200);
    expect(res.body.data.campaigns).toEqual([]);
  });
});
