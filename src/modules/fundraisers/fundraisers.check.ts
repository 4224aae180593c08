import type { Db } from '../../db/knex';
import { campaignLedgerFigures } from '../ledger';

/** The raised and tips counters on every campaign equal what the ledger says (an integrity check: answers the differences). */
export async function countersVsLedger(db: Db): Promise<string[]> {
  const out: string[] = [];
  const figures = new Map((await campaignLedgerFigures(db)).map((f) => [f.fundraiser_id, f]));
  const rows = await db('fundraisers').select('id', 'raised_cents', 'tips_cents');
  for (const r of rows) {
    const f = figures.get(r.id) ?? { raised: 0, tips: 0 };
    if (Number(r.raised_cents) !== f.raised) out.push(`fundraiser ${r.id}: raised_cents ${r.raised_cents}, ledger says ${f.raised}`);
    if (Number(r.tips_cents) !== f.tips) out.push(`fundraiser ${r.id}: tips_cents ${r.tips_cents}, ledger says ${f.tips}`);
  }
  return out;
}
