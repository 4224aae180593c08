import type { Db } from '../db/knex';
import { campaignCountersVsDonations, donationsVsLedger, donorRowsVsDonations, paidBucketsVsDonations, processorSuccessesVsDonations } from './donations';
import { countersVsLedger } from './fundraisers';
import { ledgerOwnChecks, type LedgerCheck } from './ledger';
import { payoutLedgerCheck } from './payouts';
import { tipLedgerCheck } from './tips';
import { communityLedgerCheck } from './communities';

export type { LedgerCheck } from './ledger';

/**
 * Every integrity check over the money figures (`npm run admin -- check-ledger`), collected here
 * beside the route registry: the ledger's own (groups balance), the campaigns' counters against it and each money
 * module's. The ledger does not import them, since those modules import the ledger to post.
 */
export const ledgerChecks: Record<string, LedgerCheck> = {
  ...ledgerOwnChecks,
  'campaign counters': countersVsLedger,
  'donation counters': campaignCountersVsDonations,
  'donor rows': donorRowsVsDonations,
  'donations vs ledger': donationsVsLedger,
  'paid gift buckets': paidBucketsVsDonations,
  'processor successes': processorSuccessesVsDonations,
  'platform tips': tipLedgerCheck,
  'connected accounts and payouts': payoutLedgerCheck,
  'community funds': communityLedgerCheck,
};

/** Every difference any check finds, each line prefixed with its check's name (empty = clean). */
export async function checkLedger(db: Db): Promise<string[]> {
  const out: string[] = [];
  for (const [name, check] of Object.entries(ledgerChecks)) {
    for (const line of await check(db)) out.push(`${name}: ${line}`);
  }
  return out;
}
