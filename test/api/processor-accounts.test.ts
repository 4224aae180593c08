import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { pendingJobs } from '../../src/jobs/admin';
import { authHeaders, createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver, stripeEvent } from '../helpers/stripe';

afterAll(closeDb);

const t = createTestApp();

async function onboard(h: Record<string, string>) {
  const r = await request(t.app).post('/api/v1/processor/connect/onboarding').set(h).send({});
  expect(r.status).toBe(200);
  return r.body.data as { account_id: string; url: string };
}

const accountObject = (id: string, on: boolean, metadata: Record<string, string> = {}) => ({
  id,
  object: 'account',
  charges_enabled: on,
  payouts_enabled: on,
  details_submitted: on,
  metadata,
});

describe('connected accounts', () => {
  it('when a creator starts onboarding twice, then one account is created and each call answers a link for it', async () => {
    const u = await createUser(testDb());
    const h = await authHeaders(t, u);
    const a = await onboard(h);
    expect(a.account_id).toMatch(/^acct_/);
    expect(a.url).toContain(a.account_id);
    const b = await onboard(h);
    expect(b.account_id).toBe(a.account_id);
    const list = await request(t.app).get('/api/v1/processor/accounts').set(h);
    expect(list.status).toBe(200);
    expect(list.headers['ratelimit-limit']).toBe('100');
    expect(list.body.data).toEqual([
      {
        id: a.account_id,
        owner_type: 'user',
        owner_id: u.id,
        charges_enabled: false,
        payouts_enabled: false,
        details_submitted: false,
        status: 'onboarding',
        created_at: expect.any(String),
      },
    ]);
    // The processor object names its holder, so an event can rebuild a lost row.
    const obj = await testDb()('sandbox_objects').where({ id: a.account_id }).first();
    expect(obj.data.metadata).toEqual({ kind: 'connected_account', owner_type: 'user', owner_id: u.id });
  });

  it('when onboarding names an unknown organization, then 404 Organization not found, and a non-uuid is 400', async () => {
    const h = await authHeaders(t, await createUser(testDb()));
    const r = await request(t.app).post('/api/v1/processor/connect/onboarding').set(h).send({ organization_id: '6f1c1f0e-1d2b-4c8e-9a37-2d0b7a9f0c11' });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'Not found', message: 'Organization not found' });
    const bad = await request(t.app).post('/api/v1/processor/connect/onboarding').set(h).send({ organization_id: 'acme' });
    expect(bad.status).toBe(400);
  });

  it('when signed out, then every processor route answers 401', async () => {
    expect((await request(t.app).get('/api/v1/processor/accounts')).status).toBe(401);
    expect((await request(t.app).post('/api/v1/processor/connect/onboarding').send({})).status).toBe(401);
    expect((await request(t.app).get('/api/v1/processor/connect/status')).status).toBe(401);
    expect((await request(t.app).post('/api/v1/processor/connect/dashboard-link').send({})).status).toBe(401);
  });

  it('when the status is read, then the account is brought up to date from the processor and an activation starts the sweep', async () => {
    const db = testDb();
    const u = await createUser(db);
    const h = await authHeaders(t, u);
    const { account_id } = await onboard(h);
    // The processor enabled the account, but its account.updated never arrived.
    await db('sandbox_objects').where({ id: account_id }).update({
      data: db.raw(`data || '{"charges_enabled":true,"payouts_enabled":true,"details_submitted":true}'::jsonb`),
    });
    const s = await request(t.app).get('/api/v1/processor/connect/status').set(h);
    expect(s.status).toBe(200);
    expect(s.headers['ratelimit-limit']).toBe('100');
    expect(s.body.data).toMatchObject({ id: account_id, status: 'active', charges_enabled: true, payouts_enabled: true, details_submitted: true });
    const [sweep] = await pendingJobs(db, 'payouts.sweep', `payouts.sweep:${account_id}`);
    expect(sweep).toBeDefined();
  });

  it('when the stored account is active, then an older account.updated is ignored', async () => {
    const u = await createUser(testDb());
    const { account_id } = await onboard(await authHeaders(t, u));
    const now = Math.floor(Date.now() / 1000);
    await deliver(t, { ...stripeEvent('account.updated', accountObject(account_id, true)), created: now });
    await deliver(t, { ...stripeEvent('account.updated', accountObject(account_id, false)), created: now - 60 });
    expect((await testDb()('processor_accounts').where({ id: account_id }).first()).status).toBe('active');
  });

  it('when details are in but the processor disables payouts, then the account is restricted', async () => {
    const u = await createUser(testDb());
    const { account_id } = await onboard(await authHeaders(t, u));
    await deliver(t, stripeEvent('account.updated', { ...accountObject(account_id, true), payouts_enabled: false }));
    expect((await testDb()('processor_accounts').where({ id: account_id }).first()).status).toBe('restricted');
  });

  it('when account.updated names an account whose row is missing, then the row is rebuilt from the event\'s metadata', async () => {
    const u = await createUser(testDb());
    const id = `acct_sb_lost${Date.now()}`;
    const r = await deliver(t, stripeEvent('account.updated', accountObject(id, true, { kind: 'connected_account', owner_type: 'user', owner_id: u.id })));
    expect(r.status).toBe(200);
    expect(await testDb()('processor_accounts').where({ id }).first()).toMatchObject({ owner_type: 'user', owner_id: u.id, status: 'active' });
    const unknown = await deliver(t, stripeEvent('account.updated', accountObject(`acct_sb_stranger${Date.now()}`, true)));
    expect(unknown.status).toBe(200);
  });

  it('when the account becomes active, then the sweep transfers what the holder\'s campaigns collected meanwhile', async () => {
    const db = testDb();
    const u = await createUser(db);
    const f = await createFundraiser(db, u.id);
    const gift = await createGift(db, { fundraiserId: f.id, amount: 10_000, tip: 500 });
    await t.runJobs();
    expect(await db('transfers').where({ fundraiser_id: f.id })).toHaveLength(0);
    const { account_id } = await onboard(await authHeaders(t, u));
    await deliver(t, stripeEvent('account.updated', accountObject(account_id, true)));
    await t.runJobs();
    const transfers = await db('transfers').where({ fundraiser_id: f.id });
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({ donation_id: gift.id, processor_account_id: account_id, amount_cents: gift.net });
    const sb = await db('sandbox_objects').where({ id: transfers[0].processor_transfer_id }).first();
    expect(sb.data).toMatchObject({ amount: gift.net, destination: account_id, metadata: { kind: 'donation', donation_id: gift.id } });
  });

  it('when another account id is asked for, then status and dashboard link answer 404; a malformed one 400', async () => {
    const u = await createUser(testDb());
    const h = await authHeaders(t, u);
    expect((await request(t.app).get('/api/v1/processor/connect/status').set(h)).status).toBe(404);
    const { account_id } = await onboard(h);
    const other = await onboard(await authHeaders(t, await createUser(testDb())));
    expect((await request(t.app).get(`/api/v1/processor/connect/status?account_id=${other.account_id}`).set(h)).status).toBe(404);
    expect((await request(t.app).post('/api/v1/processor/connect/dashboard-link').set(h).send({ account_id: other.account_id })).status).toBe(404);
    expect((await request(t.app).get('/api/v1/processor/connect/status?account_id=x%27').set(h)).status).toBe(400);
    const link = await request(t.app).post('/api/v1/processor/connect/dashboard-link').set(h).send({});
    expect(link.status).toBe(200);
    expect(link.body.data.url).toContain(account_id);
    const st = await request(t.app).get(`/api/v1/processor/connect/status?account_id=${account_id}`).set(h);
    expect(st.body.data).toMatchObject({ id: account_id, owner_id: u.id, status: 'onboarding' });
  });
});
