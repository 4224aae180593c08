import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { accounts, FEE_KINDS, RAISED_KINDS } from './accounts';

type Q = Db | Knex.Transaction;

/**
 * The ledger's published reads as SQL to embed in another module's statement, for reads that
 * must stay one statement (one snapshot, and no extra round trip): a balance beside the rows it
 * belongs to, or the ledger's side of an integrity check. Account names and kinds come from
 * accounts.ts only; `*Ref` arguments name a column of the enclosing query (`d.id`).
 */

const CAMPAIGN = accounts.campaign('');
const CONNECTED_PAYABLE = accounts.connectedPayable('');
const CONNECTED_ASSET = accounts.connected('');
const COMMUNITY = accounts.communityFund('');
const quoted = (kinds: readonly string[]) => kinds.map((k) => `'${k}'`).join(', ');

/** The balance of a campaign's account from one gift's entries (signed: what the campaign still owes for the gift is minus this). */
export function giftCampaignBalanceSql(db: Q, donationIdRef: string, fundraiserIdRef: string): Knex.Raw {
  return db.raw(`(select coalesce(sum(e.amount_cents), 0) from ledger_entries e where e.donation_id = ?? and e.account = '${CAMPAIGN}' || ??)`, [donationIdRef, fundraiserIdRef]);
}

/** The balance of a campaign's account (signed: what the platform owes the campaign's holder is minus this). */
export function campaignBalanceSql(db: Q, fundraiserIdRef: string): Knex.Raw {
  return db.raw(`(select coalesce(sum(e.amount_cents), 0) from ledger_entries e where e.account = '${CAMPAIGN}' || ??)`, [fundraiserIdRef]);
}

/**
 * Per campaign of `fundraiserIds`, in `currency`: `raised` (gifts less refunds and disputes,
 * before fees), `fees` and `owed` (the account's balance, as a positive amount), as a subquery
 * with columns fundraiser_id, raised, fees, owed (campaigns without entries have no row).
 */
export function campaignMoneySql(db: Q, fundraiserIds: string[], currency: string): Knex.Raw {
  return db.raw(
    `(select fundraiser_id,
             -sum(amount_cents) filter (where kind = any(?)) as raised,
             sum(amount_cents) filter (where kind = any(?)) as fees,
             -sum(amount_cents) as owed
        from ledger_entries
       where fundraiser_id = any(?::uuid[]) and account like ? and currency = ?
       group by fundraiser_id)`,
    [RAISED_KINDS, FEE_KINDS, fundraiserIds, `${CAMPAIGN}%`, currency.toLowerCase()],
  );
}

/**
 * Per gift with entries: what the campaign's account got from it (`raised`: gifts less refunds
 * and disputes), what tips revenue got (`tips`) and how many entries it has (`entries`), as a
 * subquery with columns donation_id, raised, tips, entries.
 */
export function giftTotalsSql(db: Q): Knex.Raw {
  return db.raw(`(
      select donation_id,
             -coalesce(sum(amount_cents) filter (where account like '${CAMPAIGN}%'
                         and kind in (${quoted(RAISED_KINDS)})), 0) as raised,
             -coalesce(sum(amount_cents) filter (where account = '${accounts.tips}'), 0) as tips,
             count(*) as entries
        from ledger_entries where donation_id is not null group by donation_id)`);
}

/**
 * Per connected account with entries on either side (asset and payable): transferred in,
 * reversed, paid out, the asset and the payable it mirrors, as a subquery with columns id,
 * transferred, reversed, paid_out, asset, payable.
 */
export function connectedAccountTotalsSql(db: Q): Knex.Raw {
  return db.raw(`(
       select processor_account_id as id,
              -coalesce(sum(amount_cents) filter (where account like '${CONNECTED_PAYABLE}%' and kind = 'transfer'), 0) as transferred,
              coalesce(sum(amount_cents) filter (where account like '${CONNECTED_PAYABLE}%' and kind = 'transfer_reversal'), 0) as reversed,
              coalesce(sum(amount_cents) filter (where account like '${CONNECTED_PAYABLE}%' and kind in ('payout', 'payout_reversal')), 0) as paid_out,
              coalesce(sum(amount_cents) filter (where account like '${CONNECTED_ASSET}%'), 0) as asset,
              -coalesce(sum(amount_cents) filter (where account like '${CONNECTED_PAYABLE}%'), 0) as payable
         from ledger_entries where processor_account_id is not null and account like '%:connected:%' group by 1)`);
}

/** Per connected account: what the ledger moved into it outside campaign transfers and payouts, as a subquery with columns id, s. */
export function connectedCreditTotalsSql(db: Q): Knex.Raw {
  return db.raw(`(select processor_account_id as id, -sum(amount_cents) as s from ledger_entries
                 where account like '${CONNECTED_PAYABLE}%' and kind not in ('transfer', 'transfer_reversal', 'payout', 'payout_reversal') group by 1)`);
}

/**
 * Per community fund with entries: members' payments in, the processor's fees, withdrawals and
 * the fund (as a positive amount), as a subquery with columns id (the community id as text),
 * paid, fees, withdrawn, fund.
 */
export function communityFundTotalsSql(db: Q): Knex.Raw {
  return db.raw(`(
       select substr(account, length('${COMMUNITY}') + 1) as id,
              -coalesce(sum(amount_cents) filter (where kind = 'community_payment'), 0) as paid,
              coalesce(sum(amount_cents) filter (where kind = 'processor_fee'), 0) as fees,
              coalesce(sum(amount_cents) filter (where kind = 'community_withdrawal'), 0) as withdrawn,
              coalesce(sum(amount_cents) filter (where kind = 'refund'), 0) as refunded,
              -sum(amount_cents) as fund
         from ledger_entries where account like '${COMMUNITY}%' group by 1)`);
}

/** Per platform tip (not a tip on top of a gift): the tips revenue it brought, as a subquery with columns tip_id, ledger. */
export function platformTipRevenueByTipSql(db: Q): Knex.Raw {
  return db.raw(
    `(select tip_id, -sum(amount_cents) as ledger from ledger_entries
       where account = ? and tip_id is not null and fundraiser_id is null and donation_id is null group by tip_id)`,
    [accounts.tips],
  );
}

/** The tips revenue of all platform tips (outside campaigns), as a scalar subquery. */
export function platformTipRevenueSql(db: Q): Knex.Raw {
  return db.raw(`(select -coalesce(sum(amount_cents), 0) from ledger_entries where account = ? and fundraiser_id is null and donation_id is null)`, [accounts.tips]);
}
