import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { serveForSandbox } from '../helpers/listening';
import { guardProcessor } from '../helpers/processor-guard';
import { deliver, stripeEvent } from '../helpers/stripe';
import { checkLedger } from '../../src/modules/integrity';

/**
 * No processor call happens while a database transaction is open (a slow processor would hold
 * its locks; a timeout after it acted would roll our side back). The guard wraps the payment port
 * and fails any call made inside a knex transaction; the flows below run through it, their
 * webhooks delivered by the sandbox over HTTP and their jobs run by the worker.
 */

const t = createTestApp();
serveForSandbox(t);
const db = () => testDb();
const api = (p: string) => `/api/v1${p}`;
const guard = guardProcessor(t.ctx);

afterAll(async () => {
  guard.restore();
  await closeDb();
});

describe('processor calls outside transactions', () => {
  it('when a processor method is called inside a transaction, then the guard records it and the call fails; work begun inside that calls after the commit passes', async () => {
    const seen = guard.violations.length;
    await expect(db().transaction(async () => t.ctx.payments.listPayouts('acct_guard_probe'))).rejects.toThrow(/inside an open database transaction/);
    let late: Promise<unknown> = Promise.resolve();
    await db().transaction(async (trx) => {
      late = new Promise((resolve) => setTimeout(resolve, 100)).then(() => t.ctx.payments.listPayouts('acct_guard_probe'));
      await trx.raw('select 1');
    });
    // Begun inside, called after the commit: allowed.
    await expect(late).resolves.toEqual([]);
    expect(guard.violations.slice(seen)).toHaveLength(1);
    guard.violations.splice(seen);
  });

  it('when a holder onboards, gifts settle and transfer, payouts refresh, a gift is refunded, a tip, a community withdrawal, an approved community join and a dispute of an unlinked payment are made, then no processor call happens inside a transaction', async () => {
    // Onboarding, status, dashboard.
    const holder = await createUser(db());
    const h = await authHeaders(t, holder);
    const onboard = await request(t.app).post(api('/processor/connect/onboarding')).set(h).send({});
    expect(onboard.status).toBe(200);
    const accountId = onboard.body.data.account_id as string;
    expect((await request(t.app).post(`/sandbox/connect/${accountId}/complete`).type('form').send({})).status).toBe(303);
    await t.runJobs();
    expect((await request(t.app).get(api('/processor/connect/status')).set(h)).body.data.status).toBe('active');
    expect((await request(t.app).post(api('/processor/connect/dashboard-link')).set(h).send({})).status).toBe(200);

    // Donations: a PaymentIntent and a Checkout Session; the intent is paid and its webhook settles it.
    const f = await createFundraiser(db(), holder.id);
    const intent = await request(t.app).post(api('/payments/create-intent')).send({ fundraiser_id: f.id, amount_cents: 9_000, donor_email: 'donor@example.test' });
    expect(intent.status).toBe(201);
    const checkout = await request(t.app).post(api('/donations')).send({ fundraiser_id: f.id, amount_cents: 1_500, donor_email: 'donor@example.test' });
    expect(checkout.status).toBe(201);
    const pi = intent.body.data.payment_intent_id as string;
    const paid = await request(t.app).post(`/sandbox/payment-intents/${pi}/confirm`).send({ outcome: 'succeeded' });
    expect(paid.body.data.webhook_delivered).toBe(true);
    await t.runJobs();
    expect(guard.violations).toEqual([]);
    const donationId = intent.body.data.donation_id as string;
    expect(await db()('transfers').where({ donation_id: donationId })).toHaveLength(1);

    // Payouts refresh, then a partial refund taken back from the transfer.
    expect((await request(t.app).post(api('/payouts/refresh')).set(h).send({})).status).toBe(200);
    const refund = await request(t.app).post(`/sandbox/payment-intents/${pi}/refund`).send({ amount_cents: 2_000 });
    expect(refund.body.data.webhook_delivered).toBe(true);
    await t.runJobs();
    expect(await db()('transfer_reversals').where({ donation_id: donationId })).toHaveLength(1);

    // A tip to the platform.
    expect((await request(t.app).post(api('/platform/tips')).set(h).send({ amount_cents: 500, cadence: 'one_time' })).status).toBe(201);

    // A paid community: a member joins and pays, the owner withdraws the fund with an emailed code.
    const c = (await request(t.app).post(api('/communities')).set(h).send({ name: 'Guarded club', price_cents: 3_000, interval: 'month' })).body.data;
    const member = await createUser(db());
    const join = await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(await authHeaders(t, member)).send({ interval: 'month' });
    expect(join.status).toBe(201);
    const joinPi = String(join.body.data.client_secret).split('_secret_')[0];
    expect((await request(t.app).post(`/sandbox/payment-intents/${joinPi}/confirm`).send({ outcome: 'succeeded' })).body.data.webhook_delivered).toBe(true);
    await t.runJobs();
    expect((await request(t.app).post(api(`/communities/${c.id}/fund/withdrawals/code`)).set(h)).status).toBe(200);
    const mail = await db()('mail_outbox').where({ to: holder.email, template: 'community_withdrawal_code' }).orderBy('created_at', 'desc').first();
    const code = /\b(\d{6})\b/.exec(mail.text)![1];
    const w = await request(t.app).post(api(`/communities/${c.id}/fund/withdrawals`)).set(h).send({ amount_cents: 1_000, code });
    expect(w.status).toBe(201);
    expect(w.body.data).toMatchObject({ amount_cents: 1_000, status: 'transferred' });
    await t.runJobs();

    // A paid community that approves its members: a card saved first, charged when a leader approves.
    const owner = await createUser(db());
    const oh = await authHeaders(t, owner);
    const club = (await request(t.app).post(api('/communities')).set(oh).send({ name: 'Approved club', price_cents: 2_000, interval: 'month', requires_approval: true })).body.data;
    const applicant = await createUser(db());
    const j2 = await request(t.app).post(api(`/communities/${club.id}/join/paid`)).set(await authHeaders(t, applicant)).send({ interval: 'month' });
    expect(j2.body.data).toMatchObject({ intent_type: 'setup' });
    const seti = String(j2.body.data.client_secret).split('_secret_')[0];
    expect((await request(t.app).post(`/sandbox/setup-intents/${seti}/confirm`).send({ outcome: 'succeeded' })).body.data.webhook_delivered).toBe(true);
    const approved = await request(t.app).post(api(`/communities/${club.id}/join-requests/${j2.body.data.join_id}/approve`)).set(oh);
    expect(approved.status).toBe(200);
    await t.runJobs();

    // A dispute of a payment no event linked yet: the gift is looked up at the processor first.
    const unlinked = `pi_unlinked_${Date.now()}`;
    const dispute = stripeEvent('charge.dispute.created', { id: `dp_${unlinked}`, object: 'dispute', amount: 1_000, currency: 'usd', charge: `ch_${unlinked}`, payment_intent: unlinked, status: 'needs_response' });
    expect((await deliver(t, dispute)).status).toBe(200);

    expect(guard.violations).toEqual([]);
    for (const m of ['createConnectedAccount', 'retrieveConnectedAccount', 'createPaymentIntent', 'createCheckoutSession', 'createTransfer', 'listPayouts', 'createTransferReversal', 'createSubscription', 'createSetupIntent', 'paymentIntentRef']) {
      expect(guard.calls).toContain(m);
    }
    expect(await db()('processor_calls').where({ status: 'pending' })).toEqual([]);
    expect(await checkLedger(db())).toEqual([]);
  });
});
