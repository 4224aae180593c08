import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { ledgerSql } from '../ledger';
import type { OwnerType } from './accounts.repo';

type Q = Db | Knex.Transaction;

/**
 * A declared view (read only): settled gifts (the donations module's rows, by their campaigns)
 * beside this module's transfers, each one statement so a transfer is sized on one snapshot
 * inside the caller's locks. What a campaign's ledger account holds comes from the ledger's
 * published SQL (ledgerSql), which alone knows how accounts are named.
 */

/**
 * What a transferred gift's campaign account now says the holder owes back (its per-gift balance
 * when positive: refunds and disputes after the transfer, net of the platform fee returned),
 * what of the transfer is left to reverse, and the gift's cumulative refunded plus disputed cents.
 */
export async function reversalFacts(db: Q, transferId: string): Promise<{ owedBack: number; reversible: number; takenBack: number }> {
  const { rows } = await db.raw(
    `select greatest(0, ?)::bigint as owed_back,
            (t.amount_cents - coalesce((select sum(r.amount_cents) from transfer_reversals r where r.transfer_id = t.id), 0))::bigint as reversible,
            (d.refunded_cents + d.disputed_cents)::bigint as taken_back
       from transfers t join donations d on d.id = t.donation_id
      where t.id = ?`,
    [ledgerSql.giftCampaignBalanceSql(db, 't.donation_id', 't.fundraiser_id'), transferId],
  );
  const r = rows[0];
  return r ? { owedBack: Number(r.owed_back), reversible: Number(r.reversible), takenBack: Number(r.taken_back) } : { owedBack: 0, reversible: 0, takenBack: 0 };
}

/** A settled gift with what its campaign's ledger account still owes the holder for it. */
export interface OwedGift {
  donation_id: string;
  fundraiser_id: string;
  currency: string;
  owed: number;
}

/**
 * What the campaign's ledger account still owes the holder for one gift (donation less fees,
 * refunds and disputes, less what was transferred), capped by the campaign's whole balance so
 * a transfer never leaves the campaign owing the platform (net of transfers claimed, not confirmed).
 */
export async function owedForDonation(db: Q, donationId: string): Promise<OwedGift | undefined> {
  const { rows } = await db.raw(
    `select d.id as donation_id, d.fundraiser_id, d.currency,
            least(
              -?,
              -?
              -- Transfers of the campaign's other gifts claimed and not confirmed yet are spent too.
              - coalesce((select sum(c.amount_cents) from processor_calls c
                           where c.kind = 'transfer' and c.status = 'pending' and c.fundraiser_id = d.fundraiser_id), 0)
            )::bigint as owed
       from donations d
      where d.id = ? and d.status in ('paid', 'refunded')`,
    [ledgerSql.giftCampaignBalanceSql(db, 'd.id', 'd.fundraiser_id'), ledgerSql.campaignBalanceSql(db, 'd.fundraiser_id'), donationId],
  );
  const r = rows[0];
  return r ? { donation_id: r.donation_id, fundraiser_id: r.fundraiser_id, currency: r.currency, owed: Number(r.owed) } : undefined;
}

/**
 * Settled gifts to the holder's campaigns that have no transfer yet (the sweep's work list): a
 * user's own campaigns, or an organization's.
 */
export async function untransferredGifts(db: Q, holder: { type: OwnerType; id: string }, limit: number): Promise<string[]> {
  const q = db('donations as d').join('fundraisers as f', 'f.id', 'd.fundraiser_id');
  if (holder.type === 'organization') q.where('f.org_id', holder.id);
  else q.where('f.owner_user_id', holder.id).whereNull('f.org_id');
  const rows = await q
    .leftJoin('transfers as t', 't.donation_id', 'd.id')
    .whereIn('d.status', ['paid', 'refunded'])
    .whereNull('t.id')
    // Only gifts that still owe something (a fully refunded gift never needs a transfer).
    .whereRaw('-? > 0', [ledgerSql.giftCampaignBalanceSql(db, 'd.id', 'd.fundraiser_id')])
    .orderBy([{ column: 'd.paid_at', order: 'asc' }, { column: 'd.id', order: 'asc' }])
    .limit(limit)
    .select('d.id');
  return rows.map((r: any) => r.id);
}

export interface CampaignMoney {
  fundraiser_id: string;
  /** Gross raised: gifts less refunds and disputes, before fees. */
  raised: number;
  fees: number;
  /** Still owed to the holder: not yet transferred to the connected account. */
  owed: number;
  /** The newest settled gift of the campaign that has no transfer yet. */
  last_untransferred_paid_at: Date | null;
}

/** Per campaign, from the ledger: raised, fees and what is still owed (one grouped scan of the campaigns' entries). */
export async function campaignMoney(db: Db, fundraiserIds: string[], currency: string): Promise<CampaignMoney[]> {
  if (!fundraiserIds.length) return [];
  const { rows } = await db.raw(
    `select f.id as fundraiser_id,
            coalesce(m.raised, 0)::bigint as raised, coalesce(m.fees, 0)::bigint as fees, coalesce(m.owed, 0)::bigint as owed,
            (select max(d.paid_at) from donations d left join transfers t on t.donation_id = d.id
              where d.fundraiser_id = f.id and d.status in ('paid', 'refunded') and t.id is null) as last_untransferred_paid_at
       from unnest(?::uuid[]) as f(id)
       left join ? m on m.fundraiser_id = f.id`,
    [fundraiserIds, ledgerSql.campaignMoneySql(db, fundraiserIds, currency)],
  );
  return rows.map((r: any) => ({
    fundraiser_id: r.fundraiser_id,
    raised: Number(r.raised),
    fees: Number(r.fees),
    owed: Number(r.owed),
    last_untransferred_paid_at: r.last_untransferred_paid_at ?? null,
  }));
}
