import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, type TestUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { freshIp, orgWithRoles } from '../helpers/organizations';
import { deliver, stripeEvent } from '../helpers/stripe';
import { piSucceeded, startGift } from './donations-fixtures';

afterAll(closeDb);

const t = createTestApp({ env: { TRUST_PROXY: 'loopback' } });
const db = () => testDb();
const api = (p: string) => `/api/v1${p}`;

async function as(u: TestUser) {
  return { ...(await authHeaders(t, u)), 'X-Forwarded-For': freshIp() };
}

async function onboard(u: TestUser, orgId?: string) {
  return request(t.app).post(api('/processor/connect/onboarding')).set(await as(u)).send(orgId ? { organization_id: orgId } : {});
}

const activate = (accountId: string) =>
  deliver(t, stripeEvent('account.updated', { id: accountId, object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true }));

describe('campaigns for an organization', () => {
  it('when organization_id is sent on create, then it needs org.update_settings there (admin 201, viewer 403, unknown 404)', async () => {
    const { org, admin, viewer } = await orgWithRoles(t);
    const body = { title: 'Org drive', goal_amount_cents: 50_000, status: 'draft', organization_id: org.id };
    const ok = await request(t.app).post(api('/fundraisers')).set(await as(admin)).send(body);
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ org_id: org.id, owner_user_id: admin.id });
    const denied = await request(t.app).post(api('/fundraisers')).set(await as(viewer)).send(body);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ message: 'Requires permission: org.update_settings', required_permission: 'org.update_settings' });
    const unknown = await request(t.app).post(api('/fundraisers')).set(await as(admin)).send({ ...body, organization_id: randomUUID() });
    expect([unknown.status, unknown.body.message]).toEqual([404, 'Organization not found']);
    expect((await request(t.app).post(api('/fundraisers')).set(await as(admin)).send({ ...body, organization_id: 'acme' })).status).toBe(400);
    const listed = await request(t.app).get(api(`/org-admin/${org.slug}/fundraisers`)).set(await as(viewer));
    expect(listed.body.data.map((f: any) => f.id)).toEqual([ok.body.data.id]);
  });
});

describe('organization payout accounts', () => {
  it('when the owner onboards the organization, then an organization account is created once; admins 403, unknown 404', async () => {
    const { org, owner, admin, outsider } = await orgWithRoles(t);
    const a = await onboard(owner, org.id);
    expect(a.status).toBe(200);
    const row = await db()('processor_accounts').where({ id: a.body.data.account_id }).first();
    expect(row).toMatchObject({ owner_type: 'organization', owner_id: org.id });
    const sb = await db()('sandbox_objects').where({ id: a.body.data.account_id }).first();
    expect(sb.data.metadata).toEqual({ kind: 'connected_account', owner_type: 'organization', owner_id: org.id });
    expect((await onboard(owner, org.id)).body.data.account_id).toBe(a.body.data.account_id);
    // The owner's own account stays separate.
    expect((await onboard(owner)).body.data.account_id).not.toBe(a.body.data.account_id);
    for (const u of [admin, outsider]) {
      const r = await onboard(u, org.id);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ message: 'Requires permission: org.manage_payouts', required_permission: 'org.manage_payouts' });
    }
    const unknown = await onboard(owner, randomUUID());
    expect([unknown.status, unknown.body.message]).toEqual([404, 'Organization not found']);
  });

  it('when accounts are listed or read, then the owner sees the organization\'s account and an admin does not', async () => {
    const { org, owner, admin } = await orgWithRoles(t);
    const orgAcct = (await onboard(owner, org.id)).body.data.account_id;
    const own = (await onboard(owner)).body.data.account_id;
    const list = await request(t.app).get(api('/processor/accounts')).set(await as(owner));
    expect(list.body.data.map((x: any) => x.id)).toEqual([own, orgAcct]);
    expect((await request(t.app).get(api('/processor/accounts')).set(await as(admin))).body.data).toEqual([]);
    const st = await request(t.app).get(api(`/processor/connect/status?account_id=${orgAcct}`)).set(await as(owner));
    expect([st.status, st.body.data.owner_type]).toEqual([200, 'organization']);
    expect((await request(t.app).get(api(`/processor/connect/status?account_id=${orgAcct}`)).set(await as(admin))).status).toBe(404);
    expect((await request(t.app).post(api('/processor/connect/dashboard-link')).set(await as(admin)).send({ account_id: orgAcct })).status).toBe(404);
    const refresh = await request(t.app).post(api('/payouts/refresh')).set(await as(owner)).send({ accountId: orgAcct });
    expect([refresh.status, refresh.body.data.account_id]).toEqual([200, orgAcct]);
    expect((await request(t.app).post(api('/payouts/refresh')).set(await as(admin)).send({ accountId: orgAcct })).status).toBe(404);
  });

  it('when a gift to an organization\'s campaign settles, then the organization is the holder and its account, not the creator\'s, gets the transfer', async () => {
    const { org, owner, admin } = await orgWithRoles(t);
    // The creator has an active personal account of their own: it must not receive the organization's money.
    const personal = (await onboard(admin)).body.data.account_id;
    await activate(personal);
    const orgAcct = (await onboard(owner, org.id)).body.data.account_id;
    await activate(orgAcct);
    const f = await createFundraiser(db(), admin.id, { org_id: org.id });
    const g = await startGift(t, f.id, 10_000);
    expect((await deliver(t, piSucceeded(g))).status).toBe(200);
    const [ev] = await db()('events').where({ type: 'donation.paid' }).whereRaw(`payload->>'donation_id' = ?`, [g.donation_id]);
    expect(ev.payload).toMatchObject({ holder_user_id: owner.id, holder_org_id: org.id });
    await t.runJobs();
    const transfers = await db()('transfers').where({ fundraiser_id: f.id });
    expect(transfers.map((x: any) => x.processor_account_id)).toEqual([orgAcct]);
    // A person's own campaign still pays the person.
    const mine = await createFundraiser(db(), admin.id);
    const g2 = await startGift(t, mine.id, 5_000);
    await deliver(t, piSucceeded(g2));
    await t.runJobs();
    expect((await db()('transfers').where({ fundraiser_id: mine.id })).map((x: any) => x.processor_account_id)).toEqual([personal]);
  });

  it('when the organization\'s account becomes active later, then the sweep moves its campaigns\' earlier gifts to it and payouts and earnings show in org admin', async () => {
    const { org, owner, admin, viewer } = await orgWithRoles(t);
    const f = await createFundraiser(db(), admin.id, { org_id: org.id });
    const gift = await createGift(db(), { fundraiserId: f.id, amount: 8_000 });
    await t.runJobs();
    const orgAcct = (await onboard(owner, org.id)).body.data.account_id;
    await activate(orgAcct);
    await t.runJobs();
    const transfers = await db()('transfers').where({ fundraiser_id: f.id });
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({ donation_id: gift.id, processor_account_id: orgAcct, amount_cents: gift.net });
    const payoutId = `po_test_${randomUUID().slice(0, 8)}`;
    const paid = stripeEvent('payout.paid', { id: payoutId, object: 'payout', amount: gift.net, currency: 'usd', status: 'paid', arrival_date: Math.floor(Date.UTC(2026, 10, 25) / 1000) }, { account: orgAcct });
    expect((await deliver(t, paid)).status).toBe(200);
    const r = await request(t.app).get(api(`/org-admin/${org.slug}/payouts`)).set(await as(viewer));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [{ id: expect.any(String), amount_cents: gift.net, currency: 'USD', status: 'paid', arrival_date: '2026-11-25' }],
      pagination: { limit: 20, offset: 0, total: 1 },
      account: expect.objectContaining({ id: orgAcct, owner_type: 'organization', owner_id: org.id, status: 'active' }),
      earnings: { total_cents: 8_000, fees_cents: gift.fee, available_cents: 0, pending_cents: 0, withdrawn_cents: gift.net, currency: 'USD' },
    });
    // The campaign's creator earns nothing personally from the organization's campaign.
    const mine = await request(t.app).get(api('/payouts/earnings')).set(await as(admin));
    expect(mine.body.data.total_cents).toBe(0);
    const [ev] = await db()('events').where({ type: 'payout.paid' }).whereRaw(`payload->>'processor_account_id' = ?`, [orgAcct]);
    expect(ev.payload.holder_user_id).toBe(owner.id);
    const w = await db()('withdrawals').where({ fundraiser_id: f.id });
    expect(w.map((x: any) => Number(x.amount_cents))).toEqual([gift.net]);
  });
});
