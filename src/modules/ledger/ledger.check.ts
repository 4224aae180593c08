import type { Db } from '../../db/knex';
import { accounts, RAISED_KINDS } from './accounts';
import { campaignFigures, unbalancedGroups } from './ledger.repo';
import { payoutLedgerCheck } from '../payouts';
import { tipLedgerCheck } from '../tips';
import { campaignCountersVsDonations, donationsVsLedger, donorRowsVsDonations } from '../donations';

/** One integrity check: answers the differences it finds (empty = clean). */
export type LedgerCheck = (db: Db) => Promise<string[]>;

const groupsBalance: LedgerCheck = async (db) =>
  (await unbalancedGroups(db)).map((g) => `ledger group ${g.group_id} is unbalanced by ${g.off} ${g.currency}`);

/** The raised and tips counters on every campaign equal what the ledger says. */
const campaignCounters: LedgerCheck = async (db) => {
  const out: string[] = [];
  const figures = new Map((await campaignFigures(db, RAISED_KINDS, accounts.campaign(''), accounts.tips)).map((f) => [f.fundraiser_id, f]));
  const rows = await db('fundraisers').select('id', 'raised_cents', 'tips_cents');
  for (const r of rows) {
    const f = figures.get(r.id) ?? { raised: 0, tips: 0 };
    if (Number(r.raised_cents) !== f.raised) out.push(`fundraiser ${r.id}: raised_cents ${r.raised_cents}, ledger says ${f.raised}`);
    if (Number(r.tips_cents) !== f.tips) out.push(`fundraiser ${r.id}: tips_cents ${r.tips_cents}, ledger says ${f.tips}`);
  }
  return out;
};

/**
 * Every check that `npm run admin -- check-ledger` runs. Modules that keep money counters add
 * their own check here (donation counts, tips, earnings, payouts).
 */
export const ledgerChecks: Record<string, LedgerCheck> = {
  'groups balance': groupsBalance,
  'campaign counters': campaignCounters,
  // An arrow, not the function itself: tips imports the ledger, so this module may load first.
  'platform tips': (db) => tipLedgerCheck(db),
  // Arrows: the donations module imports the ledger, so this module may load first.
  'donation counters': (db) => campaignCountersVsDonations(db),
  'donor rows': (db) => donorRowsVsDonations(db),
  'donations vs ledger': (db) => donationsVsLedger(db),
  // An arrow as well: payouts imports the ledger.
  'connected accounts and payouts': (db) => payoutLedgerCheck(db),
};

export async function checkLedger(db: Db): Promise<string[]> {
  const out: string[] = [];
  for (const [name, check] of Object.entries(ledgerChecks)) {
    for (const line of await check(db)) out.push(`${name}: ${line}`);
  }
  return out;
}
