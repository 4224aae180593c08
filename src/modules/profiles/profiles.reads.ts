/**
 * Read-only view for public profiles (the module has no table of its own; users rows come through
 * identity's findProfile). Foreign tables it reads:
 * - fundraisers, fundraiser_translations (fundraisers): the profile's campaigns, in the reader's
 *   language, and the dated facts badges derive from;
 * - donations (donations): the first public gift, for its badge;
 * - endorsements (endorsements): the campaigns the profile endorsed, and since when;
 * - users (idp): each listed campaign's owner (name, avatar, profile slug).
 * Each read is one query: badges in one round trip, the campaign list merged, ordered and capped together.
 */
import { queryRows, type Db } from '../../db/knex';
import { counterSql } from '../fundraisers';

export interface BadgeFacts {
  first_campaign: Date | null;
  first_gift: Date | null;
  goal_reached: Date | null;
  endorser: Date | null;
}

/**
 * The dated facts badges derive from, in one round trip. Only public facts count: a campaign that
 * is private or never went live, and an anonymous gift, earn nothing (a badge would reveal them).
 */
export async function badgeFacts(db: Db, userId: string): Promise<BadgeFacts> {
  const [row] = await queryRows<BadgeFacts>(
    db,
    `select
       (select min(coalesce(approved_at, created_at)) from fundraisers
         where owner_user_id = ? and deleted_at is null and visibility = 'public' and status in ('active','paused','ended')) as first_campaign,
       (select min(paid_at) from donations where donor_user_id = ? and status = 'paid' and not anonymous) as first_gift,
       (select min(goal_reached_at) from fundraisers
         where owner_user_id = ? and deleted_at is null and visibility = 'public' and status in ('active','paused','ended')) as goal_reached,
       (select min(e.created_at) from endorsements e join fundraisers f on f.id = e.fundraiser_id
         where e.user_id = ? and f.deleted_at is null and f.visibility = 'public' and f.status in ('active','ended')) as endorser`,
    [userId, userId, userId, userId],
  );
  return row!;
}

const OWNER_STATUSES = ['draft', 'pending', 'active', 'paused', 'ended'];
const PUBLIC_STATUSES = ['active', 'ended'];

/**
 * A profile's own campaigns and the campaigns it endorsed, newest first (by creation, or by
 * endorsement). Visitors see own campaigns that are public and active or ended; the owner also
 * sees drafts, pending, paused, unlisted and private ones. Endorsed campaigns are shown only while
 * public and active or ended, to everyone.
 */
export async function profileCampaigns(db: Db, userId: string, opts: { owner: boolean; lang: string | null; limit: number }) {
  const ownFilter = opts.owner ? `status = any(?::text[])` : `status = any(?::text[]) and visibility = 'public'`;
  return queryRows(
    db,
    `select f.id, coalesce(tr.title, f.title) as title, f.slug, coalesce(tr.summary, f.summary) as summary, f.cover_image,
        f.status, f.visibility, f.goal_amount_cents, ${counterSql('f.id', 'raised_cents')} as raised_cents, f.currency,
        ${counterSql('f.id', 'donor_count')}::int as donor_count, f.created_at,
        u.id as owner_id, u.name as owner_name, u.avatar as owner_avatar, u.profile_slug as owner_profile_slug, x.is_endorsed
      from (
        (select id, false as is_endorsed, created_at as added_at from fundraisers
          where owner_user_id = ? and deleted_at is null and ${ownFilter}
          order by created_at desc limit ?)
        union all
        (select e.fundraiser_id, true, e.created_at from endorsements e
           join fundraisers ef on ef.id = e.fundraiser_id
          where e.user_id = ? and ef.deleted_at is null and ef.visibility = 'public' and ef.status = any(?::text[])
          order by e.created_at desc limit ?)
      ) x
      join fundraisers f on f.id = x.id
      join users u on u.id = f.owner_user_id
      left join fundraiser_translations tr on tr.fundraiser_id = f.id and tr.lang = ? and tr.lang <> f.source_language
      order by x.added_at desc, f.id
      limit ?`,
    [userId, opts.owner ? OWNER_STATUSES : PUBLIC_STATUSES, opts.limit, userId, PUBLIC_STATUSES, opts.limit, opts.lang ?? '', opts.limit],
  );
}
