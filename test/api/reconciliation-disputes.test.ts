import request from 'supertest';
import { recordSandboxBalanceTxn } from '../../src/integrations/payments';
import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { reconcileDay, recheckPayments } from '../../src/modules/reconciliation';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver, stripeEvent } from '../helpers/stripe';
import { startGift } from './donations-fixtures';

/**
 * A dispute and its fee reconcile. The processor withdraws the disputed amount and
 * charges a fee on one balance transaction (Stripe: type `adjustment`, source the dispute, net
 * = amount - fee) and may reinstate both when the dispute is won. The ledger records the
 * disputed amount against the campaign and the fee as the platform's loss, both named by the
 * PaymentIntent, so the day reconciles clean whatever order the dispute's events arrive in.
 */

afterAll(closeDb);
const t = createTestApp({ env: { SANDBOX_WEBHOOK_URL: 'off' } });
const db = () => testDb();
const today = () => new Date().toISOString().slice(0, 10);
const DISPUTE_FEE = 1_500;

type Bt = { id: string; object: 'balance_transaction'; type: 'adjustment'; amount: number; fee: number; net: number; currency: 'usd' };

let fid: string;
const gifts: Array<{ pi: string; gross: number }> = [];

/** A balance transaction of dispute `dp` the processor made (kept by the sandbox, which lists it like Stripe). */
async function disputeTxn(dp: string, pi: string, n: number, amount: number, fee: number): Promise<Bt> {
  const id = `txn_${dp}_${n}`;
  await recordSandboxBalanceTxn(db(), { id, type: 'adjustment', amount, fee, currency: 'usd', source: { id: dp, object: 'dispute', payment_intent: pi } });
  return { id, object: 'balance_transaction', type: 'adjustment', amount, fee, net: amount - fee, currency: 'usd' };
}

function disputeEvent(type: 'created' | 'closed', dp: string, g: { pi: string; gross: number }, status: string, bts: Bt[]) {
  return stripeEvent(`charge.dispute.${type}`, { id: dp, object: 'dispute', charge: `ch_${dp}`, payment_intent: g.pi, amount: g.gross, currency: 'usd', status, metadata: {}, balance_transactions: bts });
}

const ok = async (e: Record<string, unknown>) => expect((await deliver(t, e)).status).toBe(200);
const losses = async () => Number((await db()('ledger_entries').where({ account: 'expense:losses', kind: 'dispute_fee' }).sum({ s: 'amount_cents' }))[0].s ?? 0);
const raised = async () => Number((await db()('fundraiser_counters').where({ id: fid }).first('raised_cents')).raised_cents);

async function expectClean() {
  const run = await reconcileDay(t.ctx, today());
  expect(run.differences).toEqual([]);
  expect(run.status).toBe('clean');
  expect(await checkLedger(db())).toEqual([]);
}

beforeAll(async () => {
  const owner = await createUser(db());
  fid = (await createFundraiser(db(), owner.id)).id;
  for (let i = 0; i < 3; i += 1) {
    const g = await startGift(t, fid, 4_000 + i * 1_000);
    expect((await request(t.app).post(`/sandbox/payment-intents/${g.payment_intent_id}/confirm`).send({ outcome: 'succeeded' })).status).toBe(200);
    gifts.push({ pi: g.payment_intent_id, gross: 4_000 + i * 1_000 });
  }
  await recheckPayments(t.ctx, collected.webhookHandlers, 0);
});

describe('reconciling disputes and their fees', () => {
  test('when a dispute withdraws a gift and the processor charges its fee, then the ledger records both under the PaymentIntent and the day is clean', async () => {
    await expectClean();
    const g = gifts[0]!;
    const before = await raised();
    const bt = await disputeTxn('dp_a', g.pi, 1, -g.gross, DISPUTE_FEE);
    await ok(disputeEvent('created', 'dp_a', g, 'needs_response', [bt]));
    expect(await raised()).toBe(before - g.gross);
    expect(await losses()).toBe(DISPUTE_FEE);
    expect(await db()('donations').where({ processor_payment_intent_id: g.pi }).first('dispute_fee_cents', 'dispute_fee_txns')).toEqual({ dispute_fee_cents: DISPUTE_FEE, dispute_fee_txns: 1 });
    await expectClean();
  });

  test('when a dispute is won and the processor gives the amount and its fee back, then the fee comes back out of losses once, and the older opening event arriving again changes nothing', async () => {
    const g = gifts[1]!;
    const before = await raised();
    const withdrawn = await disputeTxn('dp_b', g.pi, 1, -g.gross, DISPUTE_FEE);
    const opened = disputeEvent('created', 'dp_b', g, 'needs_response', [withdrawn]);
    await ok(opened);
    expect(await losses()).toBe(2 * DISPUTE_FEE);
    const reinstated = await disputeTxn('dp_b', g.pi, 2, g.gross, -DISPUTE_FEE);
    const won = disputeEvent('closed', 'dp_b', g, 'won', [withdrawn, reinstated]);
    await ok(won);
    expect(await raised()).toBe(before);
    expect(await losses()).toBe(DISPUTE_FEE);
    // Redelivered, and the opening event again under another id (an older report): nothing moves.
    const entries = await db()('ledger_entries').count<{ n: string }[]>({ n: '*' });
    await ok(won);
    await ok(disputeEvent('created', 'dp_b', g, 'needs_response', [withdrawn]));
    expect(await db()('ledger_entries').count<{ n: string }[]>({ n: '*' })).toEqual(entries);
    expect(await losses()).toBe(DISPUTE_FEE);
    await expectClean();
  });

  test('when a lost dispute is reported closed before it is reported opened, then the amount and the fee are recorded once and the day is clean', async () => {
    const g = gifts[2]!;
    const before = await raised();
    const bt = await disputeTxn('dp_c', g.pi, 1, -g.gross, DISPUTE_FEE);
    await ok(disputeEvent('closed', 'dp_c', g, 'lost', [bt]));
    await ok(disputeEvent('created', 'dp_c', g, 'needs_response', [bt]));
    expect(await raised()).toBe(before - g.gross);
    expect(await losses()).toBe(2 * DISPUTE_FEE);
    expect((await db()('donations').where({ processor_payment_intent_id: g.pi }).first('dispute_status')).dispute_status).toBe('lost');
    await expectClean();
  });

  test('when the processor charged a dispute fee the ledger never heard of, then the day names the dispute as amount_differs by exactly the fee', async () => {
    const g = gifts[2]!;
    // A second fee on the same dispute (a processor-side charge no event reported).
    await disputeTxn('dp_c', g.pi, 2, 0, 700);
    const run = await reconcileDay(t.ctx, today());
    expect(run.differences).toEqual([
      expect.objectContaining({ kind: 'amount_differs', ref: g.pi, move: 'dispute', processor: expect.objectContaining({ amount_cents: -g.gross - DISPUTE_FEE - 700 }), ledger: expect.objectContaining({ amount_cents: -g.gross - DISPUTE_FEE }) }),
    ]);
  });
});
