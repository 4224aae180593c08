import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { sandboxActions } from '../../src/integrations/payments';
import { observeDatabase, registry } from '../../src/infra/metrics';
import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { accounts, post } from '../../src/modules/ledger';
import { catchUpEvents, reconcileDay, recheckPayments } from '../../src/modules/reconciliation';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { startGift } from './donations-fixtures';

/**
 * Reconciliation with the processor: the sandbox's balance transactions of a day
 * against the ledger and back. A clean day first, then one of each kind of difference injected:
 * a processor refund the ledger never recorded, a ledger group the processor never saw, an
 * amount off by a cent, a currency that differs. The run is kept per day and read by staff.
 */

afterAll(closeDb);
const t = createTestApp({ env: { SANDBOX_WEBHOOK_URL: 'off' } });
const db = () => testDb();
const today = () => new Date().toISOString().slice(0, 10);
let staff: TestUser;
const pis: string[] = [];

type Diff = { kind: string; ref: string | null; move: string; processor: { amount_cents: number; currency: string } | null; ledger: { amount_cents: number; currency: string } | null };

/** The sandbox's own record of a PaymentIntent's charge, changed as a processor-side mistake would be. */
async function patchChargeTxn(pi: string, patch: (d: Record<string, any>) => Record<string, any>) {
  const row = await db()('sandbox_objects').where({ kind: 'balance_transaction' }).whereRaw("data->'source'->>'payment_intent' = ? and data->>'type' = 'charge'", [pi]).first('id', 'data');
  await db()('sandbox_objects').where({ id: row.id }).update({ data: JSON.stringify(patch(row.data)) });
  return row.id as string;
}

beforeAll(async () => {
  staff = await createUser(db(), { roles: ['user', 'staff'] });
  const owner = await createUser(db());
  const fid = (await createFundraiser(db(), owner.id)).id;
  for (let i = 0; i < 6; i += 1) {
    const g = await startGift(t, fid, 2_000 + i * 10);
    pis.push(g.payment_intent_id);
    expect((await request(t.app).post(`/sandbox/payment-intents/${g.payment_intent_id}/confirm`).send({ outcome: 'succeeded' })).status).toBe(200);
  }
  await recheckPayments(t.ctx, collected.webhookHandlers, 0);
  // A refund the ledger records (through the catch-up, as the webhook would).
  await sandboxActions.refundPaymentIntent(db(), pis[0]!, 500);
  await catchUpEvents(t.ctx, collected.webhookHandlers);
});

describe('reconciliation with the processor', () => {
  test('when a day where both sides agree is reconciled, then it is clean, kept for the day and read by staff in the decided shape', async () => {
    const run = await reconcileDay(t.ctx, today());
    expect(run.differences).toEqual([]);
    expect(run.status).toBe('clean');
    // Six charges and one refund at the processor; as many ledger groups.
    expect({ processor: run.checked_processor, ledger: run.checked_ledger }).toEqual({ processor: 7, ledger: 7 });

    const res = await request(t.app).get(`/api/v1/admin/reconciliation?day=${today()}`).set(await authHeaders(t, staff));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { day: today(), status: 'clean', checked: { processor: 7, ledger: 7 }, differences: [], ran_at: expect.any(String) } });
    expect((await checkLedger(db())).filter((l) => l.startsWith('reconciliation'))).toEqual([]);
  });

  test('when each kind of difference is injected, then the run lists each with its ids and amounts, the gauge, check-ledger and the CLI (exit 1) name them', async () => {
    // 1. A refund at the processor the ledger never heard of.
    await sandboxActions.refundPaymentIntent(db(), pis[1]!, 300);
    // 2. A ledger group naming a PaymentIntent the processor never saw.
    await db().transaction((trx) =>
      post(
        trx,
        [
          { account: accounts.processorBalance, amount_cents: 1_234, currency: 'usd', kind: 'tip' },
          { account: accounts.tips, amount_cents: -1_234, currency: 'usd', kind: 'tip' },
        ],
        { sourceEventId: 'test:ghost', processor: { ref: 'pi_ghost_never_charged', move: 'charge' } },
      ),
    );
    // 3. A charge the processor reports one cent higher than the ledger recorded.
    await patchChargeTxn(pis[2]!, (d) => ({ ...d, amount: d.amount + 1, net: d.net + 1 }));
    // 4. A charge the processor reports in another currency.
    await patchChargeTxn(pis[3]!, (d) => ({ ...d, currency: 'eur' }));

    const run = await reconcileDay(t.ctx, today());
    expect(run.status).toBe('differences');
    const byKind = Object.fromEntries((run.differences as Diff[]).map((d) => [d.kind, d]));
    expect(Object.keys(byKind).sort()).toEqual(['amount_differs', 'currency_differs', 'missing_at_processor', 'missing_in_ledger']);
    expect(run.differences).toHaveLength(4);
    expect(byKind.missing_in_ledger).toMatchObject({ ref: pis[1], move: 'refund', processor: { amount_cents: -300, currency: 'usd' }, ledger: null });
    expect(byKind.missing_at_processor).toMatchObject({ ref: 'pi_ghost_never_charged', move: 'charge', processor: null, ledger: { amount_cents: 1_234, currency: 'usd' } });
    const a = byKind.amount_differs!;
    expect(a).toMatchObject({ ref: pis[2], move: 'charge' });
    expect(a.processor!.amount_cents - a.ledger!.amount_cents).toBe(1);
    expect(byKind.currency_differs).toMatchObject({ ref: pis[3], move: 'charge', processor: { currency: 'eur' }, ledger: { currency: 'usd' } });

    const res = await request(t.app).get(`/api/v1/admin/reconciliation?day=${today()}`).set(await authHeaders(t, staff));
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('differences');
    expect(res.body.data.differences).toHaveLength(4);
    expect(Object.keys(res.body.data.differences[0]).sort()).toEqual(['kind', 'ledger', 'move', 'processor', 'ref']);

    observeDatabase(db());
    const metrics = await registry.getSingleMetricAsString('reconciliation_differences');
    expect(metrics).toMatch(/^reconciliation_differences 4$/m);
    expect(await checkLedger(db())).toContainEqual(expect.stringMatching(new RegExp(`^reconciliation: ${today()}: 4 difference`)));

    const cwd = path.resolve(__dirname, '../..');
    const env = { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL, LOG_LEVEL: 'silent', SANDBOX_WEBHOOK_URL: 'off' };
    const fail = await promisify(execFile)(path.join(cwd, 'node_modules/.bin/tsx'), ['src/cli/admin.ts', 'reconcile', '--day', today()], { cwd, env }).catch((e) => e);
    expect(fail.code).toBe(1);
    for (const k of ['missing_in_ledger', 'missing_at_processor', 'amount_differs', 'currency_differs']) expect(fail.stderr).toContain(k);
    expect(fail.stderr).toContain('pi_ghost_never_charged');
  }, 240_000);

  test('when a day never reconciled, a malformed day, or a non-staff caller asks, then 404, 400 and 403', async () => {
    const h = await authHeaders(t, staff);
    expect((await request(t.app).get('/api/v1/admin/reconciliation?day=1999-01-01').set(h)).status).toBe(404);
    expect((await request(t.app).get('/api/v1/admin/reconciliation?day=2026-02-30').set(h)).status).toBe(400);
    expect((await request(t.app).get('/api/v1/admin/reconciliation?day=yesterday').set(h)).status).toBe(400);
    const user = await createUser(db());
    expect((await request(t.app).get('/api/v1/admin/reconciliation').set(await authHeaders(t, user))).status).toBe(403);
  });
});
