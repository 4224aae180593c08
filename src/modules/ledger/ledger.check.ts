import type { Db } from '../../db/knex';
import { accounts, RAISED_KINDS } from './accounts';
import { campaignFigures, unbalancedGroups } from './ledger.repo';

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

/** The ledger's own checks; src/modules/integrity.ts adds every money module's checks to them. */
export const ledgerOwnChecks: Record<string, LedgerCheck> = {
  'groups balance': groupsBalance,
  'campaign counters': campaignCounters,
};
