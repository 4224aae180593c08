import type { Db } from '../../db/knex';
import { unbalancedGroups } from './ledger.repo';

/** One integrity check: answers the differences it finds (empty = clean). */
export type LedgerCheck = (db: Db) => Promise<string[]>;

const groupsBalance: LedgerCheck = async (db) =>
  (await unbalancedGroups(db)).map((g) => `ledger group ${g.group_id} is unbalanced by ${g.off} ${g.currency}`);

/**
 * The ledger's own checks; src/modules/integrity.ts adds every money module's checks to them
 * (the campaign counters against the ledger are the fundraisers module's, which owns them).
 */
export const ledgerOwnChecks: Record<string, LedgerCheck> = {
  'groups balance': groupsBalance,
};
