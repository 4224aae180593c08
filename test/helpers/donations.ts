import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../src/db/knex';
import { emit } from '../../src/events';
import { sandboxFee } from '../../src/integrations/payments';
import { adjustCounters } from '../../src/modules/fundraisers/counters';
import { accounts, post } from '../../src/modules/ledger';

export interface GiftOptions {
  fundraiserId: string;
  donorUserId?: string | null;
  donorEmail?: string | null;
  amount?: number;
  tip?: number;
  /** Processor fee on the whole charge; the sandbox's 2.9% + 30¢ by default. */
  fee?: number;
  platformFee?: number;
  status?: 'paid' | 'pending' | 'failed';
  paidAt?: Date;
  createdAt?: Date;
  message?: string | null;
  /** The name given at checkout ('Test Donor' unless set). */
  donorName?: string;
  anonymous?: boolean;
}

export interface Gift {
  id: string;
  receipt_id: string;
  amount_cents: number;
  tip_cents: number;
  fee: number;
  platformFee: number;
  /** The campaign's share: amount less both fees. */
  net: number;
}

/**
 * A gift as settlement leaves it: the donations row and, when paid, the same balanced ledger
 * group, donor row, counters and `donation.paid` event the donations module writes, in one
 * transaction (the guide: factories write ledger rows through the ledger's own post()).
 */
export async function createGift(db: Db, o: GiftOptions): Promise<Gift> {
  const amount = o.amount ?? 5000;
  const tip = o.tip ?? 0;
  const status = o.status ?? 'paid';
  const fee = status === 'paid' ? (o.fee ?? sandboxFee(amount + tip)) : 0;
  const pfee = status === 'paid' ? (o.platformFee ?? 0) : 0;
  return db.transaction(async (trx: Knex.Transaction) => {
    const f = await trx('fundraisers').where({ id: o.fundraiserId }).first('currency', 'owner_user_id');
    const paidAt = o.paidAt ?? new Date();
    const [d] = await trx('donations')
      .insert({
        fundraiser_id: o.fundraiserId,
        donor_user_id: o.donorUserId ?? null,
        donor_email: o.donorEmail ?? (o.donorUserId ? null : `guest-${randomUUID().slice(0, 8)}@example.test`),
        donor_name: o.donorName ?? 'Test Donor',
        anonymous: o.anonymous ?? false,
        message: o.message ?? null,
        amount_cents: amount,
        tip_cents: tip,
        currency: f.currency,
        status,
        method: 'checkout',
        processor_checkout_session_id: `cs_test_${randomBytes(8).toString('hex')}`,
        processor_fee_cents: fee,
        platform_fee_cents: pfee,
        receipt_id: `rcpt_${randomBytes(12).toString('hex')}`,
        paid_at: status === 'paid' ? paidAt : null,
        failed_at: status === 'failed' ? paidAt : null,
        created_at: o.createdAt ?? paidAt,
      })
      .returning('*');
    if (status === 'paid') {
      const on = { currency: f.currency, fundraiser_id: o.fundraiserId, donation_id: d.id };
      const campaign = accounts.campaign(o.fundraiserId);
      await post(trx, [
        { ...on, account: accounts.processorBalance, amount_cents: amount, kind: 'donation' },
        { ...on, account: campaign, amount_cents: -amount, kind: 'donation' },
        { ...on, account: accounts.processorBalance, amount_cents: tip, kind: 'tip' },
        { ...on, account: accounts.tips, amount_cents: -tip, kind: 'tip' },
        { ...on, account: campaign, amount_cents: fee, kind: 'processor_fee' },
        { ...on, account: accounts.processorBalance, amount_cents: -fee, kind: 'processor_fee' },
        { ...on, account: campaign, amount_cents: pfee, kind: 'platform_fee' },
        { ...on, account: accounts.platformFees, amount_cents: -pfee, kind: 'platform_fee' },
      ]);
      const key = o.donorUserId ?? (d.donor_email ? String(d.donor_email).toLowerCase() : d.id);
      const { rows } = await trx.raw(
        `insert into fundraiser_donors (fundraiser_id, donor_key, paid_count) values (?, ?, 1)
         on conflict (fundraiser_id, donor_key) do update set paid_count = fundraiser_donors.paid_count + 1 returning paid_count`,
        [o.fundraiserId, key],
      );
      await adjustCounters(trx, o.fundraiserId, { raised_cents: amount, tips_cents: tip, donation_count: 1, donor_count: Number(rows[0].paid_count) === 1 ? 1 : 0 });
      await emit(trx, 'donation.paid', {
        donation_id: d.id,
        fundraiser_id: o.fundraiserId,
        holder_user_id: f.owner_user_id,
        donor_user_id: d.donor_user_id,
        donor_email: d.donor_email,
        donor_name: d.donor_name,
        anonymous: d.anonymous,
        amount_cents: amount,
        tip_cents: tip,
        currency: f.currency,
        receipt_id: d.receipt_id,
        message: d.message ?? null,
        paid_at: new Date(d.paid_at).toISOString(),
      });
    }
    return { id: d.id, receipt_id: d.receipt_id, amount_cents: amount, tip_cents: tip, fee, platformFee: pfee, net: amount - fee - pfee };
  });
}
