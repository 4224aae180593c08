/**
 * Read-only view for the public homepage feed. Foreign tables it reads:
 * - fundraisers, fundraiser_translations (fundraisers): every item names its campaign (only a
 *   listable one) in the reader's language; campaigns entering review give their time only;
 * - donations (donations): the latest paid gifts, with amount and donor name;
 * - users (idp): a donor with a private profile is not named;
 * - referral_clicks (referrals), fundraiser_share_visits (fundraisers): clicks on and visits
 *   through shared links.
 * Each source is one query, because its filter on the campaign and its limit must apply together.
 */
import type { Knex } from 'knex';
import { queryRows, type Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

/** A campaign may be named in the public feed only when it is listable: public, live or ended, not deleted. */
const NAMEABLE = `f.deleted_at is null and f.visibility = 'public' and f.status in ('active','ended')`;
/** The campaign title in the reader's language when a translation exists. */
const TITLE = `coalesce(tr.title, f.title) as title`;
const TRANSLATION = `left join fundraiser_translations tr on tr.fundraiser_id = f.id and tr.lang = ? and tr.lang <> f.source_language`;

/** How recently a presence ping counts as "viewing now". */
export const VIEWING_NOW_SECONDS = 120;
/** The window of the aggregated "viewed through shared links" items. */
export const REFERRAL_VIEW_HOURS = 1;

export interface Named {
  fundraiser_id: string;
  title: string;
  slug: string;
}

export interface GiftRow extends Named {
  at: Date;
  amount_cents: string;
  currency: string;
  donor_name: string | null;
}

/**
 * The latest paid gifts to nameable campaigns. donor_name is null for anonymous gifts and for
 * donors whose profile is private (the feed is public; neither may be named in it).
 */
export function recentGifts(db: Q, lang: string, limit: number): Promise<GiftRow[]> {
  return queryRows<GiftRow>(
    db,
    `select d.paid_at as at, d.amount_cents, d.currency,
        case when d.anonymous or coalesce(u.profile_private, false) then null else nullif(trim(d.donor_name), '') end as donor_name,
        f.id as fundraiser_id, f.slug, ${TITLE}
      from donations d
      join fundraisers f on f.id = d.fundraiser_id
      left join users u on u.id = d.donor_user_id
      ${TRANSLATION}
      where d.status = 'paid' and ${NAMEABLE}
      order by d.paid_at desc
      limit ?`,
    [lang, limit],
  );
}

export interface ClickRow extends Named {
  at: Date;
}

/** The latest clicks on referral links to nameable campaigns (who clicked is never shown). */
export function recentClicks(db: Q, lang: string, limit: number): Promise<ClickRow[]> {
  return queryRows<ClickRow>(
    db,
    `select c.created_at as at, f.id as fundraiser_id, f.slug, ${TITLE}
      from referral_clicks c
      join fundraisers f on f.id = c.fundraiser_id
      ${TRANSLATION}
      where ${NAMEABLE}
      order by c.created_at desc
      limit ?`,
    [lang, limit],
  );
}

export interface CountRow extends Named {
  at: Date;
  count: number;
}

/** Visits through shared links in the last hour, one item per campaign with its count. */
export function recentReferralViews(db: Q, lang: string, limit: number): Promise<CountRow[]> {
  return queryRows<CountRow>(
    db,
    `with v as (
        select fundraiser_id, max(created_at) as at, count(*)::int as count
          from fundraiser_share_visits
         where created_at > now() - make_interval(hours => ?)
         group by fundraiser_id)
     select v.at, v.count, f.id as fundraiser_id, f.slug, ${TITLE}
       from v join fundraisers f on f.id = v.fundraiser_id
       ${TRANSLATION}
      where ${NAMEABLE}
      order by v.at desc
      limit ?`,
    [REFERRAL_VIEW_HOURS, lang, limit],
  );
}

/** Campaigns people have open right now, one item per campaign with the number of visitors. */
export function viewingNow(db: Q, lang: string, limit: number): Promise<CountRow[]> {
  return queryRows<CountRow>(
    db,
    `with p as (
        select fundraiser_id, max(seen_at) as at, count(*)::int as count
          from presence_pings
         where seen_at > now() - make_interval(secs => ?)
         group by fundraiser_id)
     select p.at, p.count, f.id as fundraiser_id, f.slug, ${TITLE}
       from p join fundraisers f on f.id = p.fundraiser_id
       ${TRANSLATION}
      where ${NAMEABLE}
      order by p.at desc
      limit ?`,
    [VIEWING_NOW_SECONDS, lang, limit],
  );
}

/** When campaigns entered review: the time only, never which campaign. */
export async function recentSubmissions(db: Q, limit: number): Promise<Date[]> {
  const rows = await db('fundraisers')
    .whereNotNull('submitted_at')
    .whereNull('deleted_at')
    .orderBy('submitted_at', 'desc')
    .limit(limit)
    .select('submitted_at');
  return rows.map((r: { submitted_at: Date }) => r.submitted_at);
}
