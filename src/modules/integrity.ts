import type { Db } from '../db/knex';
import { settledGiftCount } from './donations';
import { campaignCount } from './fundraisers';
import { ledgerChecks } from './index';
import { ledgerGroupCount } from './ledger';

export type { LedgerCheck } from './ledger';
export { ledgerChecks };

/**
 * Every difference any integrity check over the money figures finds (`npm run admin --
 * check-ledger`), each line prefixed with its check's name (empty = clean). The checks are each
 * money module's `checks` (its module file), collected by src/modules/index.ts: the ledger's own
 * own (groups balance) and the campaigns' counters first, then each money module's.
 */
export async function checkLedger(db: Db): Promise<string[]> {
  const out: string[] = [];
  for (const [name, check] of Object.entries(ledgerChecks)) {
    for (const line of await check(db)) out.push(`${name}: ${line}`);
  }
  return out;
}

/** check-ledger's differences and what the database holds: how a restored copy is judged. */
export async function integrityReport(db: Db): Promise<{ problems: string[]; counts: { campaigns: number; gifts: number; ledger_groups: number } }> {
  const problems = await checkLedger(db);
  const [campaigns, gifts, ledger_groups] = await Promise.all([campaignCount(db), settledGiftCount(db), ledgerGroupCount(db)]);
  return { problems, counts: { campaigns, gifts, ledger_groups } };
}
