import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { emit } from '../../src/events';
import { drivenCents, drivenTotals } from '../../src/modules/referrals';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver } from '../helpers/stripe';
import { piSucceeded, startGift } from './donations-fixtures';

afterAll(closeDb);

const t = createTestApp();
const db = testDb();

async function slugOf(u: TestUser): Promise<string> {
  return (await db('users').where({ id: u.id }).first('profile_slug')).profile_slug as string;
}

async function setup() {
  const owner = await createUser(db);
  const referrer = await createUser(db);
  const campaign = await createFundraiser(db, owner.id);
  return { owner, referrer, campaign, ref: await slugOf(referrer) };
}

const click = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  request(t.app).post('/api/v1/referrals/clicks').set(headers).send(body);

const impact = async (id: string) => (await request(t.app).get(`/api/v1/fundraisers/${id}/share-impact`).expect(200)).body.data;
const channels = async (id: string) => (await request(t.app).get(`/api/v1/fundraisers/${id}/share-channels`).expect(200)).body;

describe('POST /referrals/clicks', () => {
  it('when a guest clicks a profile-slug link, then 204 with no body and the visit shows in share-impact and share-channels', async () => {
    const s = await setup();
    const res = await click({ fundraiser_id: s.campaign.id, ref: s.ref, channel: 'whatsapp' }).set('Cookie', 'visitor_id=visitor-aaaa-1111').expect(204);
    expect(res.text).toBe('');
    expect(await impact(s.campaign.id)).toEqual({ visits: 1, endorser_visits: 0, donations: 0, raised_cents: 0 });
    const ch = await channels(s.campaign.id);
    expect(ch.channels.whatsapp.visits).toBe(1);
    expect(ch.total.visits).toBe(1);
    const row = await db('referral_clicks').where({ fundraiser_id: s.campaign.id }).first();
    expect(row.referrer_user_id).toBe(s.referrer.id);
    // Only a hash of the caller is kept.
    expect(row.caller_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain('visitor-aaaa-1111');
  });

  it('when the click carries no channel or an unknown share code, then the visit is unattributed and names no referrer', async () => {
    const s = await setup();
    await click({ fundraiser_id: s.campaign.id, ref: 'Share_Code_123' }).expect(204);
    const ch = await channels(s.campaign.id);
    expect(ch.unattributed.visits).toBe(1);
    const row = await db('referral_clicks').where({ fundraiser_id: s.campaign.id }).first();
    expect(row.referrer_user_id).toBeNull();
  });

  it('when the same caller clicks the same link again within 30 minutes, then it counts once', async () => {
    const s = await setup();
    const cookie = { Cookie: 'visitor_id=visitor-bbbb-2222' };
    await click({ fundraiser_id: s.campaign.id, ref: s.ref }, cookie).expect(204);
    await click({ fundraiser_id: s.campaign.id, ref: s.ref }, cookie).expect(204);
    expect((await impact(s.campaign.id)).visits).toBe(1);
    // Another visitor counts.
    await click({ fundraiser_id: s.campaign.id, ref: s.ref }, { Cookie: 'visitor_id=visitor-cccc-3333' }).expect(204);
    expect((await impact(s.campaign.id)).visits).toBe(2);
  });

  it('when the referrer endorses the campaign, then the visit counts as an endorser visit', async () => {
    const s = await setup();
    await db('endorsements').insert({ fundraiser_id: s.campaign.id, user_id: s.referrer.id });
    await click({ fundraiser_id: s.campaign.id, ref: s.ref }).expect(204);
    expect(await impact(s.campaign.id)).toMatchObject({ visits: 1, endorser_visits: 1 });
  });

  it.each([
    ['a non-uuid fundraiser_id', { fundraiser_id: 'nope', ref: 'abc' }],
    ['a missing ref', { fundraiser_id: randomUUID() }],
    ['a ref with spaces', { fundraiser_id: randomUUID(), ref: 'a b' }],
    ['a ref longer than 64', { fundraiser_id: randomUUID(), ref: 'a'.repeat(65) }],
    ['an unknown channel', { fundraiser_id: randomUUID(), ref: 'abc', channel: 'pigeon' }],
  ])('when the body has %s, then 400 with details', async (_what, body) => {
    const res = await click(body).expect(400);
    expect(res.body).toMatchObject({ error: 'Validation failed' });
    expect(Array.isArray(res.body.details)).toBe(true);
  });

  it('when the campaign is unknown or a draft, then 404', async () => {
    const s = await setup();
    const draft = await createFundraiser(db, s.owner.id, { status: 'draft' });
    await click({ fundraiser_id: randomUUID(), ref: s.ref }).expect(404);
    await click({ fundraiser_id: draft.id, ref: s.ref }).expect(404);
  });

  it('when a caller sends more than 120 clicks a minute, then 429 with the generic message', async () => {
    const fresh = createTestApp();
    const s = await setup();
    let last: request.Response | undefined;
    for (let i = 0; i < 121; i += 1) {
      last = await request(fresh.app).post('/api/v1/referrals/clicks').send({ fundraiser_id: randomUUID(), ref: 'x' });
    }
    expect(last!.status).toBe(429);
    expect(last!.body).toMatchObject({ error: 'Too many requests, please try again later.', retryAfter: 60 });
    expect(last!.headers['ratelimit-policy']).toBe('120;w=60');
    void s;
  });
});

describe('attribution of paid gifts', () => {
  async function clickAs(user: TestUser, fundraiserId: string, ref: string, channel = 'x') {
    await click({ fundraiser_id: fundraiserId, ref, channel }, await authHeaders(t, user)).expect(204);
  }

  it('when a signed-in visitor clicks a referrer link and pays within 30 days, then the gift is driven by the referrer and shows in share-impact and share-channels', async () => {
    const s = await setup();
    const donor = await createUser(db);
    await clickAs(donor, s.campaign.id, s.ref);
    await createGift(db, { fundraiserId: s.campaign.id, donorUserId: donor.id, amount: 2500 });
    await t.runJobs();
    expect(await drivenCents(db, s.referrer.id)).toBe(2500);
    expect((await drivenTotals(db, { userIds: [s.referrer.id] })).get(s.referrer.id)).toBe(2500);
    expect(await impact(s.campaign.id)).toMatchObject({ visits: 1, donations: 1, raised_cents: 2500 });
    const ch = await channels(s.campaign.id);
    expect(ch.channels.x).toMatchObject({ visits: 1, donations: 1, raised_cents: 2500 });
    expect(ch.total).toMatchObject({ donations: 1, raised_cents: 2500 });
  });

  it('when the donor clicks two links, then the last click before the gift wins', async () => {
    const s = await setup();
    const other = await createUser(db);
    const donor = await createUser(db);
    await clickAs(donor, s.campaign.id, await slugOf(other));
    await db('referral_clicks').where({ fundraiser_id: s.campaign.id }).update({ created_at: db.raw("now() - interval '1 day'") });
    await clickAs(donor, s.campaign.id, s.ref);
    await createGift(db, { fundraiserId: s.campaign.id, donorUserId: donor.id, amount: 1000 });
    await t.runJobs();
    expect(await drivenCents(db, s.referrer.id)).toBe(1000);
    expect(await drivenCents(db, other.id)).toBe(0);
  });

  it('when the click is older than 30 days, then the gift is not attributed', async () => {
    const s = await setup();
    const donor = await createUser(db);
    await clickAs(donor, s.campaign.id, s.ref);
    await db('referral_clicks').where({ fundraiser_id: s.campaign.id }).update({ created_at: db.raw("now() - interval '31 days'") });
    await createGift(db, { fundraiserId: s.campaign.id, donorUserId: donor.id, amount: 1000 });
    await t.runJobs();
    expect(await drivenCents(db, s.referrer.id)).toBe(0);
    expect((await impact(s.campaign.id)).donations).toBe(0);
  });

  it('when the donor clicked their own link, then the gift is self-referred and counts nowhere', async () => {
    const s = await setup();
    await clickAs(s.referrer, s.campaign.id, s.ref);
    await createGift(db, { fundraiserId: s.campaign.id, donorUserId: s.referrer.id, amount: 1000 });
    await t.runJobs();
    expect(await drivenCents(db, s.referrer.id)).toBe(0);
    expect(await impact(s.campaign.id)).toMatchObject({ donations: 0, raised_cents: 0 });
    expect((await db('referral_attributions').where({ fundraiser_id: s.campaign.id }).first()).self_referred).toBe(true);
  });

  it('when the donor clicked a link to another campaign, then this gift is not attributed', async () => {
    const s = await setup();
    const donor = await createUser(db);
    const elsewhere = await createFundraiser(db, s.owner.id);
    await clickAs(donor, elsewhere.id, s.ref);
    await createGift(db, { fundraiserId: s.campaign.id, donorUserId: donor.id, amount: 1000 });
    await t.runJobs();
    expect(await drivenCents(db, s.referrer.id)).toBe(0);
  });

  it('when an attributed gift is refunded in part and then fully, then driven drops accordingly, and the period filter applies', async () => {
    const s = await setup();
    const donor = await createUser(db);
    await clickAs(donor, s.campaign.id, s.ref);
    const g = await createGift(db, { fundraiserId: s.campaign.id, donorUserId: donor.id, amount: 3000 });
    await t.runJobs();
    await db.transaction((trx) => emit(trx, 'donation.refunded', { donation_id: g.id, fundraiser_id: s.campaign.id, refunded_cents: 1000, fully: false }));
    await t.runJobs();
    expect(await drivenCents(db, s.referrer.id)).toBe(2000);
    expect(await drivenCents(db, s.referrer.id, new Date(Date.now() + 60_000))).toBe(0);
    await db.transaction((trx) => emit(trx, 'donation.refunded', { donation_id: g.id, fundraiser_id: s.campaign.id, refunded_cents: 2000, fully: true }));
    await t.runJobs();
    expect(await drivenCents(db, s.referrer.id)).toBe(0);
    expect((await impact(s.campaign.id)).donations).toBe(0);
  });

  it('when a guest pays without a ref, then nothing is attributed (no account ties the gift to a click)', async () => {
    const s = await setup();
    await click({ fundraiser_id: s.campaign.id, ref: s.ref }).expect(204);
    await createGift(db, { fundraiserId: s.campaign.id, amount: 1000 });
    await t.runJobs();
    expect(await drivenCents(db, s.referrer.id)).toBe(0);
  });
});

describe('gifts paid with a ref', () => {
  /** A gift started through POST /payments/create-intent and settled by the signed webhook. */
  async function payWithRef(fundraiserId: string, ref: string | undefined, extra: Record<string, unknown> = {}, amount = 2_000) {
    const g = await startGift(t, fundraiserId, amount, 0, ref === undefined ? extra : { ref, ...extra });
    expect((await deliver(t, piSucceeded(g))).status).toBe(200);
    await t.runJobs();
    return g;
  }

  it('when a guest pays with a referrer\'s slug, then the gift stores it and is driven by the referrer, its channel from the last click on that ref', async () => {
    const s = await setup();
    await click({ fundraiser_id: s.campaign.id, ref: s.ref, channel: 'telegram' }, { Cookie: 'visitor_id=visitor-ref-1' }).expect(204);
    const g = await payWithRef(s.campaign.id, s.ref.toUpperCase());
    expect((await db('donations').where({ id: g.donation_id }).first()).referral_code).toBe(s.ref.toUpperCase());
    expect(await drivenCents(db, s.referrer.id)).toBe(2_000);
    expect(await db('referral_attributions').where({ donation_id: g.donation_id }).first()).toMatchObject({ referrer_user_id: s.referrer.id, channel: 'telegram', self_referred: false });
    expect((await channels(s.campaign.id)).channels.telegram).toMatchObject({ donations: 1, raised_cents: 2_000 });
  });

  it('when a signed-in donor clicked one link but pays with another ref, then the ref wins over the last click', async () => {
    const s = await setup();
    const other = await createUser(db);
    const donor = await createUser(db);
    const h = await authHeaders(t, donor);
    await click({ fundraiser_id: s.campaign.id, ref: await slugOf(other) }, h).expect(204);
    const res = await request(t.app).post('/api/v1/payments/create-intent').set(h).send({ fundraiser_id: s.campaign.id, amount_cents: 1_500, ref: s.ref });
    expect(res.status).toBe(201);
    expect((await deliver(t, piSucceeded(res.body.data))).status).toBe(200);
    await t.runJobs();
    expect(await db('referral_attributions').where({ donation_id: res.body.data.donation_id }).first()).toMatchObject({ referrer_user_id: s.referrer.id });
    expect(await drivenCents(db, s.referrer.id)).toBe(1_500);
    expect(await drivenCents(db, other.id)).toBe(0);
  });

  it('when the ref is a share code, then the gift is attributed with no referrer (share-impact counts it)', async () => {
    const s = await setup();
    const g = await payWithRef(s.campaign.id, 'Share_Code_9');
    expect(await db('referral_attributions').where({ donation_id: g.donation_id }).first()).toMatchObject({ referrer_user_id: null, click_id: null, channel: null });
    expect(await impact(s.campaign.id)).toMatchObject({ donations: 1, raised_cents: 2_000 });
  });

  it('when a guest pays with their own link (the referrer\'s address), then the gift is self-referred and counts nowhere', async () => {
    const s = await setup();
    const g = await payWithRef(s.campaign.id, s.ref, { donor_email: s.referrer.email.toUpperCase() });
    expect((await db('referral_attributions').where({ donation_id: g.donation_id }).first()).self_referred).toBe(true);
    expect(await drivenCents(db, s.referrer.id)).toBe(0);
    expect(await impact(s.campaign.id)).toMatchObject({ donations: 0, raised_cents: 0 });
  });

  it.each([
    ['/payments/create-intent', 'a b'],
    ['/payments/create-intent', 'x'.repeat(65)],
    ['/donations', 'bad!ref'],
    ['/donations', 42],
  ])('when %s gets the ref %p, then 400 with details and no gift', async (path, ref) => {
    const s = await setup();
    const res = await request(t.app).post(`/api/v1${path}`).send({ fundraiser_id: s.campaign.id, amount_cents: 1_000, donor_email: 'guest@example.test', ref });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Validation failed', details: [expect.objectContaining({ path: expect.stringContaining('ref') })] });
    expect(await db('donations').where({ fundraiser_id: s.campaign.id })).toHaveLength(0);
  });
});
