import request from 'supertest';
import { serveForSandbox } from '../helpers/listening';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, impersonationCookies } from '../helpers/auth';
import { deliver, stripeEvent } from '../helpers/stripe';
import { checkLedger } from '../../src/modules/integrity';
import { sandboxFee } from '../../src/integrations/payments';
import { withdrawalsFor } from '../../src/modules/payouts';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';

/**
 * The community fund: members' payments (through the sandbox and its signed webhooks) fill it,
 * and its owner withdraws to their connected account with an emailed one-time code.
 */

const t = createTestApp();
const db = () => testDb();
serveForSandbox(t);
afterAll(closeDb);

type H = Record<string, string>;
const api = (p: string) => `/api/v1${p}`;
const PRICE = 5000;
const NET = PRICE - sandboxFee(PRICE);

/** An owner (with an active connected account unless `account: false`) and a community one member has paid into. */
async function fundedCommunity(opts: { account?: boolean } = {}) {
  const owner = await createUser(db(), { email: `owner-${Math.random().toString(36).slice(2, 8)}@example.test` });
  const h = await authHeaders(t, owner);
  let accountId: string | null = null;
  if (opts.account !== false) {
    accountId = (await request(t.app).post(api('/processor/connect/onboarding')).set(h).send({})).body.data.account_id;
    const acct = { id: accountId, object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true };
    expect((await deliver(t, stripeEvent('account.updated', acct, { account: accountId! }))).status).toBe(200);
  }
  const c = (await request(t.app).post(api('/communities')).set(h).send({ name: 'Fund club', price_cents: PRICE, interval: 'month' })).body.data;
  const member = await createUser(db());
  const j = await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(await authHeaders(t, member)).send({ interval: 'month' });
  const pay = await request(t.app).post(`/sandbox/payment-intents/${j.body.data.client_secret.split('_secret_')[0]}/confirm`).send({ outcome: 'succeeded' });
  expect(pay.body.data.webhook_delivered).toBe(true);
  return { owner, h, c: c as { id: string; slug: string }, accountId };
}

const codeUrl = (c: { id: string }) => api(`/communities/${c.id}/fund/withdrawals/code`);
const withdrawUrl = (c: { id: string }) => api(`/communities/${c.id}/fund/withdrawals`);

/** Asks for a code and reads it from the mail the outbox kept. */
async function askCode(c: { id: string }, h: H, email: string): Promise<string> {
  const r = await request(t.app).post(codeUrl(c)).set(h);
  expect(r.status).toBe(200);
  const mail = await db()('mail_outbox').where({ to: email, template: 'community_withdrawal_code' }).orderBy('created_at', 'desc').first();
  return /\b(\d{6})\b/.exec(mail.text)![1];
}

const wrongOf = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('withdrawal codes', () => {
  test('when the owner asks for a code, then a 6-digit code valid 10 minutes is emailed, stored only as a hash, and the answer masks the address', async () => {
    const { owner, h, c } = await fundedCommunity({ account: false });
    const before = Date.now();
    const r = await request(t.app).post(codeUrl(c)).set(h);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ method: 'email', sent_to_hint: `o***@example.test`, expires_at: expect.any(String) });
    const ttl = new Date(r.body.data.expires_at).getTime() - before;
    expect(ttl).toBeGreaterThan(9.9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 1000);
    const mail = await db()('mail_outbox').where({ to: owner.email, template: 'community_withdrawal_code' }).first();
    const code = /\b(\d{6})\b/.exec(mail.text)![1];
    const row = await db()('community_withdrawal_codes').where({ community_id: c.id }).first();
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(code);
  });

  test('when someone other than the owner, an API key or a staff session viewing as the owner asks, then 403; an unknown community 404', async () => {
    const { owner, h, c } = await fundedCommunity({ account: false });
    const other = await createUser(db());
    const r = await request(t.app).post(codeUrl(c)).set(await authHeaders(t, other));
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('COMMUNITY_OWNER_ONLY');
    const key = (await request(t.app).post(api('/api-keys')).set(h).send({ name: 'script' })).body.api_key as string;
    expect((await request(t.app).post(codeUrl(c)).set({ Authorization: `Bearer ${key}` })).body.code).toBe('API_KEY_NOT_ALLOWED');
    const staff = await createUser(db(), { roles: ['user', 'staff'] });
    expect((await request(t.app).post(codeUrl(c)).set(await impersonationCookies(t, staff, owner))).status).toBe(403);
    expect((await request(t.app).post(codeUrl({ id: 'no-such-club' })).set(h)).status).toBe(404);
    expect((await request(t.app).post(codeUrl(c))).status).toBe(401);
    expect(await db()('community_withdrawal_codes').where({ community_id: c.id })).toHaveLength(0);
  });

  test('when a sixth code is asked within the hour, then 429 with retryAfter and Retry-After, and no mail goes out', async () => {
    const { owner, h, c } = await fundedCommunity({ account: false });
    for (let i = 0; i < 5; i += 1) expect((await request(t.app).post(codeUrl(c)).set(h)).status).toBe(200);
    const r = await request(t.app).post(codeUrl(c)).set(h);
    expect(r.status).toBe(429);
    expect(r.body.error).toBe('Too many withdrawal codes requested. Please try again later.');
    expect(r.body.retryAfter).toBeGreaterThan(3500);
    expect(r.headers['retry-after']).toBe(String(r.body.retryAfter));
    expect(await db()('mail_outbox').where({ to: owner.email, template: 'community_withdrawal_code' })).toHaveLength(5);
    // Once the oldest leaves the hour, one more is allowed.
    const oldest = await db()('community_withdrawal_codes').where({ community_id: c.id }).orderBy('created_at').first();
    await db()('community_withdrawal_codes').where({ id: oldest.id }).update({ created_at: new Date(Date.now() - 61 * 60_000) });
    expect((await request(t.app).post(codeUrl(c)).set(h)).status).toBe(200);
  });

  test('when five wrong codes are tried, then the code is burnt and even the right one is refused', async () => {
    const { owner, h, c } = await fundedCommunity();
    const code = await askCode(c, h, owner.email);
    for (let left = 4; left >= 0; left -= 1) {
      const r = await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: 100, code: wrongOf(code) });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: 'Invalid verification code', code: 'INVALID_CODE', attempts_left: left });
    }
    const r = await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: 100, code });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('CODE_ATTEMPTS_EXCEEDED');
    expect(await db()('community_withdrawals').where({ community_id: c.id })).toHaveLength(0);
  });

  test('when the code has expired, then it is refused; when a newer code was sent, then the older one no longer works', async () => {
    const { owner, h, c } = await fundedCommunity();
    const first = await askCode(c, h, owner.email);
    await db()('community_withdrawal_codes').where({ community_id: c.id }).update({ expires_at: new Date(Date.now() - 1000) });
    const r = await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: 100, code: first });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'Verification code expired', code: 'CODE_EXPIRED' });
    const second = await askCode(c, h, owner.email);
    const third = await askCode(c, h, owner.email);
    if (second !== third) expect((await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: 100, code: second })).body.code).toBe('INVALID_CODE');
    expect((await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: 100, code: third })).status).toBe(201);
  });
});

describe('withdrawals', () => {
  test('when the owner withdraws with a valid code, then the money goes to their connected account through the ledger, the code works once, and check-ledger is clean', async () => {
    const { owner, h, c, accountId } = await fundedCommunity();
    const code = await askCode(c, h, owner.email);
    const r = await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: 3000, code });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ community_id: c.id, amount_cents: 3000, currency: 'USD', status: 'transferred', fund_balance_cents: NET - 3000 });
    const w = await db()('community_withdrawals').where({ id: r.body.data.id }).first();
    expect(w).toMatchObject({ processor_account_id: accountId, amount_cents: 3000 });
    const transfer = await db()('sandbox_objects').where({ id: w.processor_transfer_id }).first();
    expect(transfer.data).toMatchObject({ amount: 3000, currency: 'usd', destination: accountId, metadata: { kind: 'community_withdrawal', community_id: c.id } });
    const entries = await db()('ledger_entries').where({ group_id: w.ledger_group_id }).orderBy('id');
    expect(entries.map((e) => [e.account, Number(e.amount_cents), e.kind])).toEqual([
      [`liability:community:${c.id}`, 3000, 'community_withdrawal'],
      ['asset:processor_balance', -3000, 'community_withdrawal'],
      [`asset:connected:${accountId}`, 3000, 'community_withdrawal'],
      [`liability:connected:${accountId}`, -3000, 'community_withdrawal'],
    ]);
    const read = await request(t.app).get(api(`/communities/${c.slug}`)).set(h);
    expect(read.body.data.fund_balance_cents).toBe(NET - 3000);
    // One use.
    const again = await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: 100, code });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_CODE');
    expect((await checkLedger(db())).filter((l) => /communit|groups balance|connected/.test(l))).toEqual([]);
  });

  test('when the amount is more than the fund or the owner has no active payout account, then 400 and the code stays usable', async () => {
    const { owner, h, c } = await fundedCommunity();
    const code = await askCode(c, h, owner.email);
    const r = await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: NET + 1, code });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'Insufficient funds', code: 'INSUFFICIENT_FUNDS', fund_balance_cents: NET });
    expect((await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: NET, code })).status).toBe(201);
    expect((await request(t.app).get(api(`/communities/${c.id}`)).set(h)).body.data.fund_balance_cents).toBe(0);

    const poor = await fundedCommunity({ account: false });
    const code2 = await askCode(poor.c, poor.h, poor.owner.email);
    const none = await request(t.app).post(withdrawUrl(poor.c)).set(poor.h).send({ amount_cents: 100, code: code2 });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ code: 'PAYOUT_ACCOUNT_REQUIRED', action: 'connect_payouts' });
    expect(await db()('community_withdrawal_codes').where({ community_id: poor.c.id }).first()).toMatchObject({ consumed_at: null, attempts: 0 });
  });

  test('when the body is malformed or a non-owner withdraws, then 400 or 403 and nothing moves', async () => {
    const { h, c } = await fundedCommunity();
    for (const body of [{ amount_cents: 0, code: '123456' }, { amount_cents: 100, code: '12345' }, { amount_cents: 1.5, code: '123456' }, { amount_cents: 2 ** 40, code: '123456' }, { code: '123456' }]) {
      expect((await request(t.app).post(withdrawUrl(c)).set(h).send(body)).status).toBe(400);
    }
    const other = await createUser(db());
    expect((await request(t.app).post(withdrawUrl(c)).set(await authHeaders(t, other)).send({ amount_cents: 100, code: '123456' })).status).toBe(403);
    expect(await db()('community_withdrawals').where({ community_id: c.id })).toHaveLength(0);
  });
});

describe('community money in payouts', () => {
  test("when the owner's account pays out campaign and community money, then only the campaign's part is its withdrawal and earnings count only it", async () => {
    const { owner, h, c, accountId } = await fundedCommunity();
    const f = await createFundraiser(db(), owner.id);
    await createGift(db(), { fundraiserId: f.id, amount: 6_000, fee: 0 });
    await t.runJobs();
    expect(await db()('transfers').where({ fundraiser_id: f.id }).sum({ s: 'amount_cents' })).toEqual([{ s: 6000 }]);
    const code = await askCode(c, h, owner.email);
    expect((await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: 2_000, code })).status).toBe(201);
    expect(await db()('connected_credits').where({ processor_account_id: accountId })).toEqual([expect.objectContaining({ bucket: `community:${c.id}`, amount_cents: 2000 })]);

    // The processor pays out the whole connected balance: 6,000 campaign + 2,000 community.
    const payout = { id: 'po_test_mixed_1', object: 'payout', amount: 8_000, currency: 'usd', status: 'paid', arrival_date: Math.floor(Date.UTC(2026, 10, 25) / 1000) };
    expect((await deliver(t, stripeEvent('payout.paid', payout, { account: accountId! }))).status).toBe(200);
    expect((await withdrawalsFor(db(), f.id)).map((w) => w.amount_cents)).toEqual([6_000]);
    const p = await db()('payouts').where({ processor_payout_id: payout.id }).first();
    expect(await db()('payout_bucket_parts').where({ payout_id: p.id })).toEqual([expect.objectContaining({ bucket: `community:${c.id}`, amount_cents: 2000, status: 'paid' })]);
    const e = await request(t.app).get(api('/payouts/earnings')).set(h);
    expect(e.body.data).toMatchObject({ total_cents: 6_000, withdrawn_cents: 6_000, available_cents: 0, pending_cents: 0 });
    const feed = await request(t.app).get(api(`/projects/${f.id}/updates`));
    expect(feed.body.filter((i: { type: string }) => i.type === 'withdrawal').map((i: { amount_cents: number }) => i.amount_cents)).toEqual([6_000]);

    // A later payout of community money alone is never a campaign withdrawal.
    const code2 = await askCode(c, h, owner.email);
    expect((await request(t.app).post(withdrawUrl(c)).set(h).send({ amount_cents: 500, code: code2 })).status).toBe(201);
    expect((await deliver(t, stripeEvent('payout.paid', { ...payout, id: 'po_test_mixed_2', amount: 500 }, { account: accountId! }))).status).toBe(200);
    expect((await withdrawalsFor(db(), f.id)).map((w) => w.amount_cents)).toEqual([6_000]);
    expect((await request(t.app).get(api('/payouts/earnings')).set(h)).body.data.withdrawn_cents).toBe(6_000);
    expect((await checkLedger(db())).filter((l) => /communit|groups balance|connected|payout/.test(l))).toEqual([]);
  });
});
