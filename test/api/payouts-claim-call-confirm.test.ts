import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { guardProcessor, processorDouble } from '../helpers/processor-guard';
import { deliver, stripeEvent } from '../helpers/stripe';
import { makeDue, pendingJobs } from '../../src/jobs/admin';
import { checkLedger } from '../../src/modules/integrity';
import { chargeRefunded, piSucceeded, sandboxSucceeded, startGift, type Gift } from './donations-fixtures';

/**
 * Payouts move money as claim, call, confirm: no database lock is held while the processor is
 * called, and a call that failed after the processor acted is repaired with the same key.
 */

afterAll(closeDb);

const t = createTestApp();
// A second worker on the same database: jobs of another gift run while the first one's call is out.
const t2 = createTestApp();
const db = () => testDb();

async function creator() {
  const u = await createUser(db());
  const h = await authHeaders(t, u);
  const accountId = (await request(t.app).post('/api/v1/processor/connect/onboarding').set(h).send({})).body.data.account_id as string;
  const acct = { id: accountId, object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true };
  expect((await deliver(t, stripeEvent('account.updated', acct, { account: accountId }))).status).toBe(200);
  await t.runJobs();
  return { u, h, accountId };
}

async function paidByWebhook(app: typeof t, fundraiserId: string, amount: number): Promise<Gift> {
  const g = await startGift(app, fundraiserId, amount);
  await sandboxSucceeded(app, g.payment_intent_id);
  expect((await deliver(app, piSucceeded(g))).status).toBe(200);
  return g;
}

const sandboxTransfers = (donationId: string) => db()('sandbox_objects').where({ kind: 'transfer' }).whereRaw(`data->'metadata'->>'donation_id' = ?`, [donationId]);
const transfersOf = (donationId: string) => db()('transfers').where({ donation_id: donationId });

/** Sessions of this test database sitting in an open transaction (other than the asking one). */
async function openTransactions(): Promise<number> {
  const { rows } = await db().raw(
    `select count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%'`,
  );
  return rows[0].n;
}

/** Settles within `ms`, or answers 'blocked'. */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), ms).unref())]);

describe('claim, call, confirm', () => {
  it('when the processor stalls on one gift\'s transfer, then another gift of the same holder settles and transfers meanwhile, no transaction is left open, and the stalled one confirms after', async () => {
    const c = await creator();
    const f = await createFundraiser(db(), c.u.id);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const stalled = new Promise<void>((resolve) => (entered = resolve));
    let first: string | null = null;
    const undo = processorDouble(t.ctx, {
      createTransfer: async (real, input) => {
        first ??= input.metadata.donation_id;
        if (input.metadata.donation_id === first) {
          entered();
          await gate;
        }
        return real(input);
      },
    });
    const guard = guardProcessor(t2.ctx);
    try {
      const a = await paidByWebhook(t, f.id, 6_000);
      const worker1 = t.runJobs();
      await within(stalled, 5_000);
      expect(first).toBe(a.donation_id);

      // While A's transfer is out at the processor: B's paid webhook, its transfer, and a refund of A.
      const b = await paidByWebhook(t2, f.id, 4_000);
      expect((await deliver(t2, chargeRefunded(a, 1_000))).status).toBe(200);
      expect(await within(t2.runJobs(), 5_000)).not.toBe('blocked');
      expect(await transfersOf(b.donation_id)).toHaveLength(1);
      expect(await openTransactions()).toBe(0);
      // The holder's account row is free: nothing holds it across the call.
      await db().transaction(async (trx) => {
        await trx.raw('select id from processor_accounts where id = ? for update nowait', [c.accountId]);
      });
      expect(await transfersOf(a.donation_id)).toHaveLength(0);

      release();
      await worker1;
      await t.runJobs();
      await t2.runJobs();
    } finally {
      release();
      undo();
      guard.restore();
    }
    expect(guard.violations).toEqual([]);
    // A is transferred once; the refund that came while its call was out is reversed after its confirm.
    const [a] = await db()('donations').where({ fundraiser_id: f.id, amount_cents: 6_000 });
    expect(await transfersOf(a.id)).toHaveLength(1);
    expect(await sandboxTransfers(a.id)).toHaveLength(1);
    const reversed = await db()('transfer_reversals').where({ donation_id: a.id });
    expect(reversed).toHaveLength(1);
    const owed = await db()('ledger_entries').where({ donation_id: a.id, account: `liability:campaign:${f.id}` }).sum({ s: 'amount_cents' });
    expect(Number(owed[0].s)).toBe(0);
    expect(await db()('processor_calls').where({ processor_account_id: c.accountId, status: 'pending' })).toEqual([]);
    expect(await checkLedger(db())).toEqual([]);
  });

  it('when the processor makes the transfer and then times out, then POST /payouts/refresh confirms it with the same key: one transfer at the processor, ledger in agreement', async () => {
    const c = await creator();
    const f = await createFundraiser(db(), c.u.id);
    const undo = processorDouble(t.ctx, {
      createTransfer: async (real, input) => {
        await real(input);
        throw Object.assign(new Error('Request timed out'), { type: 'StripeConnectionError' });
      },
    });
    let g: Gift;
    try {
      g = await paidByWebhook(t, f.id, 8_000);
      await t.runJobs();
    } finally {
      undo();
    }
    // The processor moved the money; the service has not confirmed it yet.
    expect(await sandboxTransfers(g.donation_id)).toHaveLength(1);
    expect(await transfersOf(g.donation_id)).toHaveLength(0);

    const guard = guardProcessor(t.ctx);
    try {
      const r = await request(t.app).post('/api/v1/payouts/refresh').set(c.h).send({});
      expect(r.status).toBe(200);
      expect(r.body.data.repaired.ledger_entries).toBeGreaterThanOrEqual(4);
    } finally {
      guard.restore();
    }
    expect(guard.violations).toEqual([]);
    expect(guard.calls).toContain('createTransfer');
    const rows = await transfersOf(g.donation_id);
    expect(rows).toHaveLength(1);
    const sb = await sandboxTransfers(g.donation_id);
    expect(sb).toHaveLength(1);
    expect(rows[0].processor_transfer_id).toBe(sb[0].id);
    expect(Number(rows[0].amount_cents)).toBe(Number(sb[0].data.amount));
    const group = await db()('ledger_entries').where({ donation_id: g.donation_id, kind: 'transfer' });
    expect(group).toHaveLength(4);

    // The call's own retry, later, finds it done and moves nothing.
    await makeDue(db(), 'payouts.call');
    await t.runJobs();
    expect(await sandboxTransfers(g.donation_id)).toHaveLength(1);
    expect(await transfersOf(g.donation_id)).toHaveLength(1);
    expect(await checkLedger(db())).toEqual([]);
  });

  it('when a claim is still pending past the processor\'s idempotency window, then no run re-calls it and check-ledger names it', async () => {
    const c = await creator();
    const f = await createFundraiser(db(), c.u.id);
    const undo = processorDouble(t.ctx, {
      createTransfer: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED'), { type: 'StripeConnectionError' });
      },
    });
    let g: Gift;
    try {
      g = await paidByWebhook(t, f.id, 3_000);
      await t.runJobs();
    } finally {
      undo();
    }
    const claim = await db()('processor_calls').where({ donation_id: g.donation_id, kind: 'transfer' }).first();
    expect(claim).toMatchObject({ status: 'pending', idempotency_key: `transfer:${g.donation_id}` });
    // Once, or more on a busy machine: the job's retry (backoff of a few seconds) can fall due inside the same drain.
    expect(claim.attempts).toBeGreaterThanOrEqual(1);
    expect(claim.last_error).toMatch(/ECONNREFUSED/);
    await db()('processor_calls').where({ id: claim.id }).update({ created_at: db().raw(`now() - interval '25 hours'`) });

    const guard = guardProcessor(t.ctx);
    try {
      expect((await request(t.app).post('/api/v1/payouts/refresh').set(c.h).send({})).status).toBe(200);
    } finally {
      guard.restore();
    }
    expect(guard.calls).not.toContain('createTransfer');
    expect(await sandboxTransfers(g.donation_id)).toHaveLength(0);
    expect(await checkLedger(db())).toEqual([expect.stringContaining(`processor call ${claim.id}: transfer of ${claim.amount_cents} to ${c.accountId}`)]);
    // Reconciled by hand (here: the processor never made it), so later checks in this file start clean.
    const left = await pendingJobs(db(), 'payouts.call');
    if (left.length) await db().raw('select graphile_worker.complete_jobs(?::bigint[])', [left.map((j) => j.id)]);
    await db()('processor_calls').where({ id: claim.id }).del();
  });
});
