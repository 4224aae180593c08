import type { Db } from '../../db/knex';
import { tipRevenueFigures, tipRevenueTotals } from './tips.repo';

/**
 * Tips revenue of platform tips (not the tips on top of gifts, which carry their campaign) equals
 * the tip payments recorded, per tip and in total.
 */
export async function tipLedgerCheck(db: Db): Promise<string[]> {
  const out = (await tipRevenueFigures(db)).map((f) => `tip ${f.tip_id}: payments ${f.paid}, ledger says ${f.ledger}`);
  const { paid, ledger } = await tipRevenueTotals(db);
  if (paid !== ledger) out.push(`platform tips total: payments ${paid}, ledger says ${ledger}`);
  return out;
}
