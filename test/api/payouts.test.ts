import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver, stripeEvent } from '../helpers/stripe';
import { checkLedger } from '../../src/modules/integrity';
import { splitProportionally, withdrawalsFor } from '../../src/modules/payouts';
import { piSucceeded, startGift } from './donations-fixtures';

afterAll(closeDb);

const t = createTestApp();
const db = () => testDb();

async function creator(opts: { active?: boolean } = {}) {
  const u = await createUser(db());
  const h = await authHeaders(t, u);
  let accountId: string | null = null;
  if (opts.active !== false) {
    const r = await request(t.app).post('/api/v1/processor/connect/onboarding').set(h).send({});
    accountId = r.body.data.account_id as string;
    const acct = { id: accountId, object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true };
    expect((await deliver(t, stripeEvent('account.updated', acct, { account: accountId }))).status).toBe(200);
    await t.runJobs();
  }
  return { u, h, accountId };
}

const payoutEvent = (type: 'payout.paid' | 'payout.failed', account: string, id: string, amount: number, arrival = Math.floor(Date.UTC(2026, 10, 25) / 1000)) =>
  stripeEvent(type, { id, object: 'payout', amount, currency: 'usd', status: type === 'payout.paid' ? 'paid' : 'failed', arrival_date: arrival }, { account });

const poId = () => `po_test_${randomBytes(6).toString('hex')}`;

async function expectLedgerClean() {
  const problems = (await checkLedger(db())).filter((l) => /connected|payout/.test(l));
  expect(problems).toEqual([]);
}

describe('transfers', () => {
  it('when a gift settles for a holder with an active account, then its net share is transferred once with a balanced ledger group', async () => {
    const { u, accountId } = await creator();
    const f = await createFundraiser(db(), u.id);
    const gift = await createGift(db(), { fundraiserId: f.id, amount: 10_000, tip: 1_000, platformFee: 200 });
    await t.runJobs();
    const rows = await db()('transfers').where({ donation_id: gift.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amount_cents: 10_000 - gift.fee - 200, processor_account_id: accountId, fundraiser_id: f.id });
    const entries = await db()('ledger_entries').where({ donation_id: gift.id, kind: 'transfer' }).orderBy('id');
    expect(entries.map((e) => [e.account, Number(e.amount_cents)])).toEqual([
      [`liability:campaign:${f.id}`, gift.net],
      ['asset:processor_balance', -gift.net],
      [`asset:connected:${accountId}`, gift.net],
      [`liability:connected:${accountId}`, -gift.net],
    ]);
    // The campaign's account is square: everything it was owed went to the holder.
    const owed = await db()('ledger_entries').where({ account: `liability:campaign:${f.id}` }).sum({ s: 'amount_cents' });
    expect(Number(owed[0].s)).toBe(0);
    await expectLedgerClean();
  });

  it('when a gift settles through the real signed webhook, then the holder\'s active account receives its net share', async () => {
    const { u, accountId } = await creator();
    const f = await createFundraiser(db(), u.id);
    const g = await startGift(t, f.id, 7_500, 500);
    expect((await deliver(t, piSucceeded(g))).status).toBe(200);
    await t.runJobs();
    const d = await db()('donations').where({ id: g.donation_id }).first();
    expect(d.status).toBe('paid');
    const tr = await db()('transfers').where({ donation_id: g.donation_id }).first();
    expect(tr).toMatchObject({ processor_account_id: accountId, amount_cents: 7_500 - Number(d.processor_fee_cents) - Number(d.platform_fee_cents) });
    await expectLedgerClean();
  });

  it('when the holder has no active account, then nothing is transferred and earnings show everything pending', async () => {
    const { u, h } = await creator({ active: false });
    const f = await createFundraiser(db(), u.id);
    const gift = await createGift(db(), { fundraiserId: f.id, amount: 4_000, tip: 200 });
    await t.runJobs();
    expect(await db()('transfers').where({ fundraiser_id: f.id })).toHaveLength(0);
    const e = await request(t.app).get('/api/v1/payouts/earnings?userId=someone-else').set(h);
    expect(e.status).toBe(200);
    expect(e.body).toEqual({ data: { total_cents: 4_000, fees_cents: gift.fee, available_cents: 0, pending_cents: 4_000, withdrawn_cents: 0, currency: 'USD' } });
    const b = await request(t.app).get('/api/v1/payouts/earnings/pending-breakdown').set(h);
    expect(b.body).toEqual({ data: [{ fundraiser_id: f.id, title: f.title, pending_cents: 4_000, available_on: null }] });
  });
});

describe('payouts', () => {
  async function fundedCreator() {
    const c = await creator();
    const a = await createFundraiser(db(), c.u.id);
    const b = await createFundraiser(db(), c.u.id);
    const g1 = await createGift(db(), { fundraiserId: a.id, amount: 10_000, fee: 0 });
    const g2 = await createGift(db(), { fundraiserId: b.id, amount: 5_000, fee: 0 });
    await t.runJobs();
    return { ...c, accountId: c.accountId!, a, b, g1, g2 };
  }

  it('when payout.paid arrives, then a paid payout, an exact proportional split, a ledger group and a payout.paid event, once', async () => {
    const s = await fundedCreator();
    const id = poId();
    const ev = payoutEvent('payout.paid', s.accountId, id, 10_001);
    expect((await deliver(t, ev)).status).toBe(200);
    expect((await deliver(t, ev)).status).toBe(200);
    const p = await db()('payouts').where({ processor_payout_id: id }).first();
    expect(p).toMatchObject({ status: 'paid', amount_cents: 10_001, processor_account_id: s.accountId });
    const ws = await withdrawalsFor(db(), s.a.id);
    const wb = await withdrawalsFor(db(), s.b.id);
    // 10,001 split 2:1 -> 6,667.33 and 3,333.67: the larger remainder takes the odd cent.
    expect(ws).toEqual([expect.objectContaining({ payout_id: p.id, amount_cents: 6_667, status: 'paid', arrival_date: '2026-11-25', currency: 'USD' })]);
    expect(wb).toEqual([expect.objectContaining({ amount_cents: 3_334 })]);
    const groups = await db()('ledger_entries').where({ processor_account_id: s.accountId, kind: 'payout' });
    expect(groups.map((e) => Number(e.amount_cents)).sort()).toEqual([-10_001, 10_001]);
    const events = await db()('events').where({ type: 'payout.paid' }).whereRaw(`payload->>'payout_id' = ?`, [p.id]);
    expect(events).toHaveLength(1);
    expect(events[0].payload).toEqual({ payout_id: p.id, processor_account_id: s.accountId, holder_user_id: s.u.id, amount_cents: 10_001, currency: 'usd' });
    await expectLedgerClean();

    const e = await request(t.app).get('/api/v1/payouts/earnings').set(s.h);
    expect(e.body.data).toEqual({ total_cents: 15_000, fees_cents: 0, available_cents: 15_000 - 10_001, pending_cents: 0, withdrawn_cents: 10_001, currency: 'USD' });
  });

  it('when a paid payout then fails, then the ledger is reversed, its withdrawals fail and the money is available again', async () => {
    const s = await fundedCreator();
    const id = poId();
    await deliver(t, payoutEvent('payout.paid', s.accountId, id, 15_000));
    expect((await deliver(t, payoutEvent('payout.failed', s.accountId, id, 15_000))).status).toBe(200);
    // A late paid (older news) changes nothing.
    await deliver(t, payoutEvent('payout.paid', s.accountId, id, 15_000));
    const p = await db()('payouts').where({ processor_payout_id: id }).first();
    expect(p.status).toBe('failed');
    expect(p.reversal_group_id).not.toBeNull();
    expect((await withdrawalsFor(db(), s.a.id)).map((w) => w.status)).toEqual(['failed']);
    const e = await request(t.app).get('/api/v1/payouts/earnings').set(s.h);
    expect(e.body.data).toMatchObject({ available_cents: 15_000, withdrawn_cents: 0 });
    await expectLedgerClean();
  });

  it('when a payout names no known account, then it is acknowledged and changes nothing', async () => {
    const id = poId();
    expect((await deliver(t, payoutEvent('payout.paid', 'acct_sb_nobody', id, 100))).status).toBe(200);
    expect(await db()('payouts').where({ processor_payout_id: id }).first()).toBeUndefined();
  });

  it('when listing payouts, then only the caller\'s, newest first, paged', async () => {
    const s = await fundedCreator();
    const other = await fundedCreator();
    await deliver(t, payoutEvent('payout.paid', s.accountId, poId(), 1_000));
    await deliver(t, payoutEvent('payout.paid', s.accountId, poId(), 2_000));
    await deliver(t, payoutEvent('payout.paid', other.accountId, poId(), 3_000));
    const r = await request(t.app).get('/api/v1/payouts?limit=1').set(s.h);
    expect(r.status).toBe(200);
    expect(r.body.pagination).toEqual({ limit: 1, offset: 0, total: 2 });
    expect(r.body.data).toEqual([{ id: expect.any(String), amount_cents: 2_000, currency: 'USD', status: 'paid', arrival_date: '2026-11-25' }]);
    expect((await request(t.app).get('/api/v1/payouts')).status).toBe(401);
  });
});

describe('POST /payouts/refresh', () => {
  it('when the processor has payouts the service missed, then refresh records them and their ledger groups, moving no money', async () => {
    const c = await creator();
    const f = await createFundraiser(db(), c.u.id);
    await createGift(db(), { fundraiserId: f.id, amount: 20_000, fee: 0 });
    await t.runJobs();
    // The sandbox paid the transfer out on its own (in transit); its events never reached us.
    const sb = await db()('sandbox_objects').where({ kind: 'payout' }).whereRaw(`data->>'account' = ?`, [c.accountId!]);
    expect(sb).toHaveLength(1);
    const transfersBefore = await db()('transfers').count<{ n: string }[]>({ n: '*' });

    const r1 = await request(t.app).post('/api/v1/payouts/refresh').set(c.h).send({});
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ data: { account_id: c.accountId, repaired: { payouts: 1, donations: 0, ledger_entries: 0 } } });
    expect(await db()('payouts').where({ processor_payout_id: sb[0].id }).first()).toMatchObject({ status: 'in_transit', amount_cents: 20_000 });

    await db()('sandbox_objects').where({ id: sb[0].id }).update({ data: db().raw(`data || '{"status":"paid"}'::jsonb`) });
    const t2 = createTestApp(); // fresh buckets: the first refresh spent this minute's one
    const r2 = await request(t2.app).post('/api/v1/payouts/refresh').set(await authHeaders(t2, c.u)).send({ accountId: c.accountId });
    expect(r2.body.data.repaired).toEqual({ payouts: 1, donations: 1, ledger_entries: 2 });
    expect((await withdrawalsFor(db(), f.id)).map((w) => [w.amount_cents, w.status])).toEqual([[20_000, 'paid']]);
    expect((await db()('transfers').count<{ n: string }[]>({ n: '*' }))[0].n).toBe(transfersBefore[0].n);
    await expectLedgerClean();
  });

  it('when refreshed twice in a minute for the same account, however named, then 429 with Retry-After', async () => {
    const c = await creator();
    expect((await request(t.app).post('/api/v1/payouts/refresh').set(c.h).send({})).status).toBe(200);
    const again = await request(t.app).post('/api/v1/payouts/refresh').set(c.h).send({ accountId: c.accountId });
    expect(again.status).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    expect(again.body).toMatchObject({ error: expect.any(String), retryAfter: 60 });
  });

  it('when another account id is given, then 404 and the owner\'s bucket is not spent', async () => {
    const victim = await creator();
    const attacker = await creator();
    const r = await request(t.app).post('/api/v1/payouts/refresh').set(attacker.h).send({ accountId: victim.accountId });
    expect(r.status).toBe(404);
    expect((await request(t.app).post('/api/v1/payouts/refresh').set(victim.h).send({})).status).toBe(200);
    const none = await creator({ active: false });
    expect((await request(t.app).post('/api/v1/payouts/refresh').set(none.h).send({})).status).toBe(404);
    expect((await request(t.app).post('/api/v1/payouts/refresh').set(none.h).send({ accountId: 'nope' })).status).toBe(400);
  });
});

describe('earnings with an active account', () => {
  it('when gifts were transferred, then available holds the net, fees are shown and nothing is pending', async () => {
    const c = await creator();
    const f = await createFundraiser(db(), c.u.id);
    const g = await createGift(db(), { fundraiserId: f.id, amount: 3_000, tip: 100 });
    await t.runJobs();
    const e = await request(t.app).get('/api/v1/payouts/earnings').set(c.h);
    expect(e.headers['ratelimit-limit']).toBe('100');
    expect(e.body.data).toEqual({ total_cents: 3_000, fees_cents: g.fee, available_cents: g.net, pending_cents: 0, withdrawn_cents: 0, currency: 'USD' });
    expect((await request(t.app).get('/api/v1/payouts/earnings/pending-breakdown').set(c.h)).body).toEqual({ data: [] });
    expect((await request(t.app).get('/api/v1/payouts/earnings')).status).toBe(401);
  });
});

describe('splitProportionally', () => {
  it('when split, then parts sum exactly, follow the weights and break ties by order', () => {
    expect(splitProportionally(100, [{ key: 'a', weight: 1 }, { key: 'b', weight: 1 }, { key: 'c', weight: 1 }]).map((p) => p.cents)).toEqual([34, 33, 33]);
    expect(splitProportionally(7, [{ key: 'a', weight: 0 }, { key: 'b', weight: 5 }]).map((p) => p.cents)).toEqual([0, 7]);
    expect(splitProportionally(9, [{ key: 'a', weight: 0 }, { key: 'b', weight: 0 }]).map((p) => p.cents)).toEqual([5, 4]);
    const big = splitProportionally(Number.MAX_SAFE_INTEGER, [{ key: 'a', weight: 3 }, { key: 'b', weight: Number.MAX_SAFE_INTEGER }]);
    expect(big.reduce((s, p) => s + p.cents, 0)).toBe(Number.MAX_SAFE_INTEGER);
  });
});

