import type { Db } from '../../db/knex';
import { accounts, RAISED_KINDS } from '../ledger';

const FEE_KINDS = ['processor_fee', 'platform_fee'];

/** The holder's own campaigns (not an organization's) with the currency most of them use. */
export async function ownCampaigns(db: Db, ownerUserId: string): Promise<Array<{ id: string; title: string; currency: string }>> {
  return db('fundraisers').where({ owner_user_id: ownerUserId }).whereNull('org_id').orderBy('created_at').select('id', 'title', 'currency');
}

/** An organization's campaigns (its earnings: the organization is their holder). */
export async function orgCampaigns(db: Db, orgId: string): Promise<Array<{ id: string; title: string; currency: string }>> {
  return db('fundraisers').where({ org_id: orgId }).orderBy('created_at').select('id', 'title', 'currency');
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
       left join (
         select fundraiser_id,
                -sum(amount_cents) filter (where kind = any(?)) as raised,
                sum(amount_cents) filter (where kind = any(?)) as fees,
                -sum(amount_cents) as owed
           from ledger_entries
          where fundraiser_id = any(?::uuid[]) and account like ? and currency = ?
          group by fundraiser_id) m on m.fundraiser_id = f.id`,
    [fundraiserIds, RAISED_KINDS, FEE_KINDS, fundraiserIds, `${accounts.campaign('')}%`, currency.toLowerCase()],
  );
  return rows.map((r: any) => ({
    fundraiser_id: r.fundraiser_id,
    raised: Number(r.raised),
    fees: Number(r.fees),
    owed: Number(r.owed),
    last_untransferred_paid_at: r.last_untransferred_paid_at ?? null,
  }));
}

/**
 * A connected account's campaign figures: transferred from the campaigns, less what refunds and
 * disputes took back (transfer reversals), and not yet paid out (available), and the campaigns' share of paid payouts (withdrawn, net of failed ones). Money
 * the account got from elsewhere (a community fund) and its share of payouts are left out.
 */
export async function connectedMoney(db: Db, accountId: string, currency: string): Promise<{ available: number; withdrawn: number }> {
  const { rows } = await db.raw(
    `select (coalesce((select sum(amount_cents) from transfers where processor_account_id = ? and currency = ?), 0)
             - coalesce((select sum(amount_cents) from transfer_reversals where processor_account_id = ? and currency = ?), 0))::bigint as transferred,
            coalesce((select sum(w.amount_cents) from withdrawals w join payouts p on p.id = w.payout_id
                       where p.processor_account_id = ? and w.currency = ? and w.status = 'paid'), 0)::bigint as withdrawn`,
    [accountId, currency.toLowerCase(), accountId, currency.toLowerCase(), accountId, currency.toLowerCase()],
  );
  const transferred = Number(rows[0]?.transferred ?? 0);
  const withdrawn = Number(rows[0]?.withdrawn ?? 0);
  return { available: Math.max(0, transferred - withdrawn), withdrawn };
}
