import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver, stripeEvent } from '../helpers/stripe';
import { checkLedger } from '../../src/modules/integrity';
import { connectedBalance } from '../../src/integrations/payments/sandbox-payouts';
import { chargeRefunded, dispute, piSucceeded, sandboxSucceeded, startGift } from './donations-fixtures';

afterAll(closeDb);

// A 5% platform fee: a refund gives the platform's part back, so only the rest is reversed.
const t = createTestApp({ env: { PLATFORM_FEE_BPS: '500' } });
const db = () => testDb();

async function creator(opts: { active?: boolean } = {}) {
  const u = await createUser(db());
  const h = await authHeaders(t, u);
  const r = await request(t.app).post('/api/v1/processor/connect/onboarding').set(h).send({});
  const accountId = r.body.data.account_id as string;
  if (opts.active !== false) {
    const acct = { id: accountId, object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true };
    expect((await deliver(t, stripeEvent('account.updated', acct, { account: accountId }))).status).toBe(200);
    await t.runJobs();
  }
  return { u, h, accountId };
}

/** A gift paid through the signed webhook, with the sandbox's fee, and its transfer (if any). */
async function paidGift(fundraiserId: string, amount: number, tip: number) {
  const g = await startGift(t, fundraiserId, amount, tip);
  await sandboxSucceeded(t, g.payment_intent_id);
  expect((await deliver(t, piSucceeded(g))).status).toBe(200);
  await t.runJobs();
  const d = await db()('donations').where({ id: g.donation_id }).first();
  const net = amount - Number(d.processor_fee_cents) - Number(d.platform_fee_cents);
  return { g, d, net, fee: Number(d.processor_fee_cents), pfee: Number(d.platform_fee_cents) };
}

const reversalsOf = (donationId: string) => db()('transfer_reversals').where({ donation_id: donationId }).orderBy('created_at').orderBy('id');
const giftCampaignBalance = async (donationId: string, fundraiserId: string) =>
  Number((await db()('ledger_entries').where({ donation_id: donationId, account: `liability:campaign:${fundraiserId}` }).sum({ s: 'amount_cents' }))[0].s);

async function expectLedgerClean() {
  expect(await checkLedger(db())).toEqual([]);
}

describe('transfer reversals', () => {
  it('when a transferred gift is refunded in part then in full, then the campaign\'s share comes back from the transfer, once per amount', async () => {
    const c = await creator();
    const f = await createFundraiser(db(), c.u.id);
    const { g, net, fee, pfee } = await paidGift(f.id, 10_000, 500);
    const tr = await db()('transfers').where({ donation_id: g.donation_id }).first();
    expect(Number(tr.amount_cents)).toBe(net);

    const partial = chargeRefunded(g, 3_000);
    expect((await deliver(t, partial)).status).toBe(200);
    await t.runJobs();
    // 3,000 off the campaign's part, of which the platform returns its 5% (150).
    let revs = await reversalsOf(g.donation_id);
    expect(revs.map((r) => Number(r.amount_cents))).toEqual([3_000 - 150]);
    expect(revs[0]).toMatchObject({ transfer_id: tr.id, processor_account_id: c.accountId, fundraiser_id: f.id });
    const sb = await db()('sandbox_objects').where({ id: revs[0].processor_reversal_id }).first();
    expect(sb).toMatchObject({ kind: 'transfer_reversal', idempotency_key: `transfer-reversal:${g.donation_id}:3000` });
    expect(sb.data).toMatchObject({ amount: 2_850, transfer: tr.processor_transfer_id, destination: c.accountId });
    const entries = await db()('ledger_entries').where({ donation_id: g.donation_id, kind: 'transfer_reversal' }).orderBy('id');
    expect(entries.map((e) => [e.account, Number(e.amount_cents)])).toEqual([
      [`asset:connected:${c.accountId}`, -2_850],
      [`liability:connected:${c.accountId}`, 2_850],
      [`liability:campaign:${f.id}`, -2_850],
      ['asset:processor_balance', 2_850],
    ]);
    expect(await giftCampaignBalance(g.donation_id, f.id)).toBe(0);

    // Redelivery of the same event, and an older refund arriving late, change nothing.
    await deliver(t, partial);
    await deliver(t, chargeRefunded(g, 1_000));
    await t.runJobs();
    expect(await reversalsOf(g.donation_id)).toHaveLength(1);

    expect((await deliver(t, chargeRefunded(g, 10_500))).status).toBe(200);
    await t.runJobs();
    revs = await reversalsOf(g.donation_id);
    // The rest of the transfer; the processor's fee is not refunded to the platform and stays
    // the campaign's cost, as with a refund of a gift never transferred.
    expect(revs.map((r) => Number(r.amount_cents))).toEqual([2_850, net - 2_850]);
    expect(await giftCampaignBalance(g.donation_id, f.id)).toBe(fee);
    expect(pfee).toBe(500);
    // The sandbox took it from the connected account, whose transfer was already paid out.
    expect(await connectedBalance(db(), c.accountId, 'usd')).toBe(-net);
    await deliver(t, chargeRefunded(g, 10_500));
    await t.runJobs();
    expect(await reversalsOf(g.donation_id)).toHaveLength(2);
    await expectLedgerClean();

    const e = await request(t.app).get('/api/v1/payouts/earnings').set(c.h);
    expect(e.body.data).toEqual({ total_cents: 0, fees_cents: fee, available_cents: 0, pending_cents: 0, withdrawn_cents: 0, currency: 'USD' });
  });

  it('when a transferred gift is disputed, then its share is reversed once; lost takes nothing more and won leaves it with the platform', async () => {
    const c = await creator();
    const f = await createFundraiser(db(), c.u.id);
    const lost = await paidGift(f.id, 4_000, 0);
    const won = await paidGift(f.id, 6_000, 0);
    await deliver(t, dispute(lost.g, 'charge.dispute.created', 'needs_response'));
    await deliver(t, dispute(won.g, 'charge.dispute.created', 'needs_response'));
    await t.runJobs();
    const share = (x: { g: { amount_cents: number }; pfee: number }) => x.g.amount_cents - x.pfee;
    expect((await reversalsOf(lost.g.donation_id)).map((r) => Number(r.amount_cents))).toEqual([Math.min(share(lost), lost.net)]);
    expect((await reversalsOf(won.g.donation_id)).map((r) => Number(r.amount_cents))).toEqual([won.net]);

    await deliver(t, dispute(lost.g, 'charge.dispute.closed', 'lost'));
    await deliver(t, dispute(won.g, 'charge.dispute.closed', 'won'));
    // A refund after a won dispute finds the transfer reversed already.
    await deliver(t, chargeRefunded(won.g, 6_000));
    await t.runJobs();
    expect(await reversalsOf(lost.g.donation_id)).toHaveLength(1);
    expect(await reversalsOf(won.g.donation_id)).toHaveLength(1);
    await expectLedgerClean();

    const e = await request(t.app).get('/api/v1/payouts/earnings').set(c.h);
    expect(e.body.data).toEqual({
      total_cents: 0,
      fees_cents: lost.fee + won.fee,
      available_cents: 0,
      pending_cents: 0,
      withdrawn_cents: 0,
      currency: 'USD',
    });
  });

  it('when a gift that was never transferred is refunded, then nothing is reversed and its transfer later moves only what is still owed', async () => {
    const c = await creator({ active: false });
    const f = await createFundraiser(db(), c.u.id);
    const { g, net } = await paidGift(f.id, 8_000, 0);
    await deliver(t, chargeRefunded(g, 2_000));
    await t.runJobs();
    expect(await db()('transfers').where({ donation_id: g.donation_id })).toHaveLength(0);
    expect(await reversalsOf(g.donation_id)).toHaveLength(0);

    const acct = { id: c.accountId, object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true };
    await deliver(t, stripeEvent('account.updated', acct, { account: c.accountId }));
    await t.runJobs();
    const tr = await db()('transfers').where({ donation_id: g.donation_id }).first();
    expect(Number(tr.amount_cents)).toBe(net - (2_000 - 100));
    expect(await reversalsOf(g.donation_id)).toHaveLength(0);
    await expectLedgerClean();
  });
});
