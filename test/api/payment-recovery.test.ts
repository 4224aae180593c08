import request from 'supertest';
import { sandboxActions } from '../../src/integrations/payments';
import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { catchUpEvents, recheckPayments } from '../../src/modules/reconciliation';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver } from '../helpers/stripe';
import { startGift } from './donations-fixtures';

/**
 * Recovering missed processor events: with the sandbox's deliveries off, every gift
 * of a batch is paid by the recheck alone (PaymentIntents and Checkout Sessions; a cancelled
 * session fails its gift); the real webhooks arriving afterwards, shuffled and doubled, change
 * nothing; a refund made at the processor with no delivery is applied by the event catch-up.
 */

afterAll(closeDb);
const t = createTestApp({ env: { SANDBOX_WEBHOOK_URL: 'off' } });
const db = () => testDb();
const handlers = collected.webhookHandlers;

type Obj = Record<string, any>;

async function snapshot(fundraiserId: string) {
  // Mails and outbound deliveries come from jobs the settlement queued: run them first.
  await t.runJobs();
  const count = async (table: string) => Number((await db()(table).count<{ n: string }[]>({ n: '*' }))[0]!.n);
  return {
    fundraiser: await db()('fundraiser_counters').where({ id: fundraiserId }).first('raised_cents', 'tips_cents', 'donation_count', 'donor_count'),
    donations: await db()('donations').where({ fundraiser_id: fundraiserId }).orderBy('id').select('id', 'status', 'refunded_cents', 'processor_fee_cents'),
    ledger_entries: await count('ledger_entries'),
    events: await count('events'),
    mails: await count('mail_outbox'),
    webhook_deliveries: await count('webhook_deliveries'),
  };
}

/** Every event the sandbox recorded (none was delivered). */
async function recordedEvents(): Promise<Obj[]> {
  const rows = await db()('sandbox_objects').where({ kind: 'event' }).orderBy('created_at').select('data');
  return rows.map((r) => r.data.event);
}

describe('payment recovery with the sandbox deliveries off', () => {
  let fid: string;
  const pis: string[] = [];

  test('when every gift of a batch is paid at the processor with no webhook, then the recheck pays each one exactly once, an expired Checkout Session fails its gift, and a second recheck changes nothing', async () => {
    const owner = await createUser(db());
    fid = (await createFundraiser(db(), owner.id)).id;
    // Five PaymentIntent gifts confirmed at the processor (the card succeeded), one declined.
    for (let i = 0; i < 6; i += 1) {
      const g = await startGift(t, fid, 1_000 + i * 100, i === 0 ? 200 : 0);
      pis.push(g.payment_intent_id);
      const r = await request(t.app).post(`/sandbox/payment-intents/${g.payment_intent_id}/confirm`).send({ outcome: i === 5 ? 'failed' : 'succeeded' });
      expect(r.status).toBe(200);
    }
    // Two Checkout gifts: one paid, one cancelled (the session expires).
    const paid = await request(t.app).post('/api/v1/donations').send({ fundraiser_id: fid, amount_cents: 3_000, donor_email: 'c1@example.test' });
    const cancelled = await request(t.app).post('/api/v1/donations').send({ fundraiser_id: fid, amount_cents: 4_000, donor_email: 'c2@example.test' });
    expect([paid.status, cancelled.status]).toEqual([201, 201]);
    const session = async (id: string) => (await db()('donations').where({ id }).first('processor_checkout_session_id')).processor_checkout_session_id as string;
    expect((await request(t.app).post(`/sandbox/checkout/${await session(paid.body.data.donation_id)}/complete`)).status).toBe(303);
    expect((await request(t.app).post(`/sandbox/checkout/${await session(cancelled.body.data.donation_id)}/cancel`)).status).toBe(303);

    // Nothing reached the webhook: every gift still pending.
    expect(Number((await db()('processed_webhook_events').count<{ n: string }[]>({ n: '*' }))[0]!.n)).toBe(0);
    expect(new Set((await db()('donations').where({ fundraiser_id: fid }).select('status')).map((d) => d.status))).toEqual(new Set(['pending']));

    const r = await recheckPayments(t.ctx, handlers, 0);
    expect(r).toMatchObject({ rechecked: 8, failed: 0 });
    const rows = await db()('donations').where({ fundraiser_id: fid }).select('id', 'status', 'amount_cents', 'processor_fee_cents');
    const byStatus = (s: string) => rows.filter((d) => d.status === s).length;
    expect([byStatus('paid'), byStatus('failed'), byStatus('pending')]).toEqual([6, 2, 0]);
    expect(rows.find((d) => d.id === cancelled.body.data.donation_id)!.status).toBe('failed');
    // The fee comes from the processor as a webhook's would (2.9% + 30 cents in the sandbox).
    expect(rows.find((d) => d.id === paid.body.data.donation_id)!.processor_fee_cents).toBe(Math.round(3_000 * 0.029) + 30);
    const f = await db()('fundraiser_counters').where({ id: fid }).first('raised_cents', 'donation_count');
    expect(f).toEqual({ raised_cents: 1_000 + 1_100 + 1_200 + 1_300 + 1_400 + 3_000, donation_count: 6 });

    const before = await snapshot(fid);
    // One mail per paid gift to its donor (the receipt) went out, once.
    expect(before.mails).toBeGreaterThanOrEqual(6);
    expect(await recheckPayments(t.ctx, handlers, 0)).toMatchObject({ rechecked: 2, applied: 0 });
    expect(await snapshot(fid)).toEqual(before);
    expect(await checkLedger(db())).toEqual([]);
  });

  test('when the real webhooks then arrive late, shuffled and each twice, then totals, ledger, events, mails and outbound deliveries stay as the recheck left them', async () => {
    const before = await snapshot(fid);
    const events = await recordedEvents();
    expect(events.length).toBeGreaterThanOrEqual(9);
    const doubled = [...events, ...events].sort(() => Math.random() - 0.5);
    for (const e of doubled) expect((await deliver(t, e)).status).toBe(200);
    expect(await snapshot(fid)).toEqual(before);
    expect(await checkLedger(db())).toEqual([]);
  });

  test('when a refund is made at the processor and its event is never delivered, then the event catch-up applies it once, and running it again changes nothing', async () => {
    const pi = pis[1]!;
    const gift = await db()('donations').where({ processor_payment_intent_id: pi }).first('id', 'amount_cents');
    await sandboxActions.refundPaymentIntent(db(), pi, 400);
    expect((await db()('donations').where({ id: gift.id }).first('refunded_cents')).refunded_cents).toBe(0);

    const r = await catchUpEvents(t.ctx, handlers);
    expect(r.applied).toBe(1);
    expect((await db()('donations').where({ id: gift.id }).first('refunded_cents')).refunded_cents).toBe(400);
    const after = await snapshot(fid);
    expect(after.fundraiser.raised_cents).toBe(1_000 + 1_100 + 1_200 + 1_300 + 1_400 + 3_000 - 400);

    // The cursor moved, and the overlap lists recent events again: their ids change nothing.
    const again = await catchUpEvents(t.ctx, handlers);
    expect(again).toMatchObject({ applied: 0, failed: 0 });
    expect(again.listed).toBeGreaterThan(0);
    expect(await snapshot(fid)).toEqual(after);
    expect(await checkLedger(db())).toEqual([]);
  });
});
