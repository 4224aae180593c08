import type { Db } from '../../db/knex';
import { campaignLedgerFigures } from '../ledger';
import { campaignCountersSql } from './fundraisers.reads';

/** The raised and tips counters on every campaign equal what the ledger says (an integrity check: answers the differences). */
export async function countersVsLedger(db: Db): Promise<string[]> {
  const out: string[] = [];
  const figures = new Map((await campaignLedgerFigures(db)).map((f) => [f.fundraiser_id, f]));
  // The summed shard rows: what every read shows (counters.ts).
  const rows = (await db.raw(`select id, raised_cents, tips_cents from ${campaignCountersSql(db).toQuery()} c`)).rows as Array<{ id: string; raised_cents: string; tips_cents: string }>;
  for (const r of rows) {
    const f = figures.get(r.id) ?? { raised: 0, tips: 0 };
    if (Number(r.raised_cents) !== f.raised) out.push(`fundraiser ${r.id}: raised_cents ${r.raised_cents}, ledger says ${f.raised}`);
    if (Number(r.tips_cents) !== f.tips) out.push(`fundraiser ${r.id}: tips_cents ${r.tips_cents}, ledger says ${f.tips}`);
  }
  return out;
}
