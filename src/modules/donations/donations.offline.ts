import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { campaignSummary } from '../fundraisers';
import * as repo from './donations.repo';
import type { DonationRow } from './donations.repo';
import { settle } from './donations.settle';

export interface SettledGift {
  fundraiser_id: string;
  amount_cents: number;
  tip_cents?: number;
  donor_user_id?: string | null;
  donor_email?: string | null;
  donor_name?: string | null;
  anonymous?: boolean;
  message?: string | null;
  /** The processor's fee on the whole charge. */
  fee_cents?: number;
}

/**
 * A gift that is already paid (the demo data set, data imports): a pending row settled through
 * the same code path as a processor event, so the ledger group, counters, donor row and the
 * `donation.paid` event are exactly what a real payment writes.
 */
export async function recordSettledGift(ctx: Pick<AppContext, 'config' | 'log'>, trx: Knex.Transaction, g: SettledGift): Promise<DonationRow> {
  const f = await campaignSummary(trx, g.fundraiser_id);
  if (!f) throw new Error(`fundraiser ${g.fundraiser_id} not found`);
  const row = await repo.insertDonation(trx, {
    fundraiser_id: g.fundraiser_id,
    donor_user_id: g.donor_user_id ?? null,
    donor_email: g.donor_email?.toLowerCase() ?? null,
    donor_name: g.donor_name ?? null,
    anonymous: g.anonymous ?? false,
    message: g.message ?? null,
    amount_cents: g.amount_cents,
    tip_cents: g.tip_cents ?? 0,
    currency: f.currency,
    status: 'pending',
    method: 'payment_intent',
    receipt_id: randomBytes(24).toString('base64url'),
    locale: 'en',
  });
  const gross = g.amount_cents + (g.tip_cents ?? 0);
  const facts = { amount: gross, currency: f.currency, paymentIntentId: null, chargeId: null, fee: g.fee_cents ?? 0 };
  if ((await settle(ctx as AppContext, trx, row, facts, `offline:${row.id}`)) !== 'applied') {
    throw new Error(`gift ${row.id} did not settle`);
  }
  return row;
}
