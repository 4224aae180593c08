import type { Db } from '../../../db/knex';
import { campaignCountersSql } from '../../fundraisers';

/** recurring_donor_count of every campaign against its live monthly gifts (check-ledger). */
export async function recurringDonorCounts(db: Db): Promise<string[]> {
  const { rows } = await db.raw(
    `with g as (
      select fundraiser_id, count(distinct coalesce(donor_user_id::text, lower(donor_email), id::text))::int as n
        from recurring_gifts where status in ('active', 'paused', 'past_due') group by fundraiser_id)
    select f.id, f.recurring_donor_count as have, coalesce(g.n, 0) as want
      from ? f left join g on g.fundraiser_id = f.id
     where f.recurring_donor_count <> coalesce(g.n, 0)
     limit 100`,
    [campaignCountersSql(db)],
  );
  return rows.map((r: { id: string; have: number; want: number }) => `fundraiser ${r.id}: recurring_donor_count ${r.have}, monthly gifts say ${r.want}`);
}

/** Each paid gift of a monthly gift names the invoice it came from (a renewal without one could be settled twice). */
export async function recurringGiftsHaveInvoices(db: Db): Promise<string[]> {
  const { rows } = await db.raw(`
    select id from donations
     where recurring_gift_id is not null and paid_at is not null and processor_invoice_id is null
     limit 100`);
  return rows.map((r: { id: string }) => `donation ${r.id}: a monthly gift's payment without its invoice`);
}
