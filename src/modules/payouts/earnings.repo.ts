import type { Db } from '../../db/knex';

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
