import type { Db } from '../../db/knex';
import { campaignCountersSql } from '../fundraisers';
import { ledgerSql } from '../ledger';
import { paymentSuccessesSql } from '../webhooks';

/**
 * Integrity checks of the donations module (run by `npm run admin -- check-ledger` through the
 * ledger's check list). Each answers the differences it finds; empty means clean.
 *
 * What a gift should have left in the ledger follows from its row alone: refunds and open or
 * lost disputes (x = refunded + disputed) come off the campaign's part first, then the tip.
 */
const TAKEN_CAMPAIGN = 'least(d.amount_cents, d.refunded_cents + d.disputed_cents)';
const TAKEN_TIP = 'least(d.tip_cents, greatest(0, d.refunded_cents + d.disputed_cents - d.amount_cents))';

/** donation_count, donor_count, raised and tips of every campaign against the donations table. */
export async function campaignCountersVsDonations(db: Db): Promise<string[]> {
  const { rows } = await db.raw(
    `with g as (
      select d.fundraiser_id,
             count(*) filter (where d.status = 'paid') as donations,
             count(distinct coalesce(d.donor_user_id::text, lower(d.donor_email), d.id::text)) filter (where d.status = 'paid') as donors,
             coalesce(sum(d.amount_cents - ${TAKEN_CAMPAIGN}), 0) as raised,
             coalesce(sum(d.tip_cents - ${TAKEN_TIP}), 0) as tips
        from donations d where d.paid_at is not null group by d.fundraiser_id)
    select f.id, f.donation_count, f.donor_count, f.raised_cents, f.tips_cents,
           coalesce(g.donations, 0) as donations, coalesce(g.donors, 0) as donors,
           coalesce(g.raised, 0) as raised, coalesce(g.tips, 0) as tips
      from ? f left join g on g.fundraiser_id = f.id
     where f.donation_count <> coalesce(g.donations, 0) or f.donor_count <> coalesce(g.donors, 0)
        or f.raised_cents <> coalesce(g.raised, 0) or f.tips_cents <> coalesce(g.tips, 0)`,
    [campaignCountersSql(db)],
  );
  const out: string[] = [];
  for (const r of rows) {
    const pairs: Array<[string, unknown, unknown]> = [
      ['donation_count', r.donation_count, r.donations],
      ['donor_count', r.donor_count, r.donors],
      ['raised_cents', r.raised_cents, r.raised],
      ['tips_cents', r.tips_cents, r.tips],
    ];
    for (const [name, have, want] of pairs) {
      if (Number(have) !== Number(want)) out.push(`fundraiser ${r.id}: ${name} ${have}, donations say ${want}`);
    }
  }
  return out;
}

/** fundraiser_donors (which donor_count moves by) against the paid gifts per donor. */
export async function donorRowsVsDonations(db: Db): Promise<string[]> {
  const { rows } = await db.raw(`
    with g as (
      select fundraiser_id, coalesce(donor_user_id::text, lower(donor_email), id::text) as donor_key, count(*) as n
        from donations where status = 'paid' group by 1, 2)
    select coalesce(fd.fundraiser_id, g.fundraiser_id) as fundraiser_id, coalesce(fd.donor_key, g.donor_key) as donor_key,
           coalesce(fd.paid_count, 0) as have, coalesce(g.n, 0) as want
      from fundraiser_donors fd full join g on g.fundraiser_id = fd.fundraiser_id and g.donor_key = fd.donor_key
     where coalesce(fd.paid_count, 0) <> coalesce(g.n, 0)`);
  return rows.map((r: any) => `fundraiser ${r.fundraiser_id}: donor ${r.donor_key} has paid_count ${r.have}, donations say ${r.want}`);
}

/** Each gift's entries against its row: the campaign's part, the tip, and nothing for unsettled gifts. */
export async function donationsVsLedger(db: Db): Promise<string[]> {
  const { rows } = await db.raw(
    `with l as ?
     select d.id, d.paid_at is not null as settled,
           d.amount_cents - ${TAKEN_CAMPAIGN} as want_raised, d.tip_cents - ${TAKEN_TIP} as want_tips,
           coalesce(l.raised, 0) as raised, coalesce(l.tips, 0) as tips, coalesce(l.entries, 0) as entries
      from donations d left join l on l.donation_id = d.id
     where (d.paid_at is null and coalesce(l.entries, 0) > 0)
        or (d.paid_at is not null and (coalesce(l.raised, 0) <> d.amount_cents - ${TAKEN_CAMPAIGN}
                                       or coalesce(l.tips, 0) <> d.tip_cents - ${TAKEN_TIP}))`,
    [ledgerSql.giftTotalsSql(db)],
  );
  return rows.map((r: any) =>
    r.settled
      ? `donation ${r.id}: ledger says raised ${r.raised} and tips ${r.tips}, the row says ${r.want_raised} and ${r.want_tips}`
      : `donation ${r.id}: not settled but has ${r.entries} ledger entries`,
  );
}

/** The 30-second buckets of paid gifts (donations_last_24h) against the paid gifts themselves. */
export async function paidBucketsVsDonations(db: Db): Promise<string[]> {
  const { rows } = await db.raw(`
    with g as (select fundraiser_id, paid_bucket_of(paid_at) as bucket, count(*)::int as n
                 from donations where status = 'paid' and paid_at is not null group by 1, 2),
         b as (select fundraiser_id, bucket, sum(n)::int as n from fundraiser_paid_buckets group by 1, 2 having sum(n) <> 0)
    select coalesce(g.fundraiser_id, b.fundraiser_id) as fundraiser_id, coalesce(g.bucket, b.bucket) as bucket,
           coalesce(g.n, 0) as gifts, coalesce(b.n, 0) as counted
      from g full join b on b.fundraiser_id = g.fundraiser_id and b.bucket = g.bucket
     where coalesce(g.n, 0) <> coalesce(b.n, 0)
     limit 100`);
  return rows.map(
    (r: { fundraiser_id: string; bucket: Date; gifts: number; counted: number }) =>
      `fundraiser ${r.fundraiser_id}: ${r.gifts} paid gifts at ${new Date(r.bucket).toISOString()}, bucket counts ${r.counted}`,
  );
}

/**
 * Every payment the processor reported as succeeded for a gift (a processed PaymentSucceeded
 * naming it, webhooks.repo.ts) left that gift settled: a success recorded against a gift that
 * is not paid (or no gift at all) is money the processor holds that no campaign shows.
 */
export async function processorSuccessesVsDonations(db: Db): Promise<string[]> {
  const { rows } = await db.raw(
    `select e.event_id, e.ref_id, d.status
      from ? e
      left join donations d on d.id::text = e.ref_id
     where d.id is null or d.paid_at is null
     order by e.processed_at
     limit 100`,
    [paymentSuccessesSql(db, 'donation')],
  );
  return rows.map((r: { event_id: string; ref_id: string; status: string | null }) =>
    r.status
      ? `donation ${r.ref_id}: the processor reported its payment succeeded (${r.event_id}) but the gift is ${r.status}`
      : `donation ${r.ref_id}: the processor reported its payment succeeded (${r.event_id}) but no such gift exists`,
  );
}
