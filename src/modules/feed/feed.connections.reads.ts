/**
 * Read-only view of who is connected to which campaign, for the campaign-updates feed. Foreign
 * tables it reads:
 * - follows (follows): active follows of a campaign's holder (its organization, else its owner);
 * - donations (donations): paid gifts of a user to a campaign;
 * - fundraisers (fundraisers): each campaign's holder, visibility, status and owner;
 * - project_updates (updates): when an update was posted, for who it reaches.
 * The feed reads follows and donations in one statement: joining them in SQL is what keeps it
 * fast for a user who follows a thousand holders (bench/feed.ts), so CONNECTED is a WITH clause
 * the feed's queries start from.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

/** The spec's two rules (feed rule 3), on a fundraiser aliased `f`. */
const FOLLOW_READABLE = `f.visibility = 'public' and f.status in ('active','ended')`;
const GIFT_READABLE = `f.status in ('active','paused','ended') and f.visibility <> 'private'`;

/**
 * The campaigns connected to user :me, with the moment the relationship began (`since`):
 * - follows: an active follow of the campaign's holder (its organization when it has one, else
 *   its owner); `since` is that follow's start, so unfollowing and following again moves it;
 * - gifts: a paid gift of :me to the campaign; `since` is the first one's payment.
 * A follow reaches only public campaigns that are active or ended; a gift also reaches the
 * campaign while it is paused or unlisted (never private). Never deleted campaigns, never the
 * caller's own. The earliest current relationship wins.
 */
export const CONNECTED = `
  rel as (
    select f.id as fundraiser_id, fo.created_at as since
      from follows fo
      join fundraisers f on f.owner_user_id = fo.following_id and f.org_id is null and f.deleted_at is null
                        and ${FOLLOW_READABLE}
     where fo.follower_id = :me and fo.following_type = 'user' and fo.deleted_at is null
    union all
    select f.id, fo.created_at
      from follows fo
      join fundraisers f on f.org_id = fo.following_id and f.org_id is not null and f.deleted_at is null
                        and ${FOLLOW_READABLE}
     where fo.follower_id = :me and fo.following_type = 'organization' and fo.deleted_at is null
    union all
    select d.fundraiser_id, d.paid_at
      from donations d
      join fundraisers f on f.id = d.fundraiser_id and ${GIFT_READABLE}
     where d.donor_user_id = :me and d.status = 'paid' and d.paid_at is not null
  ),
  conn as (
    select f.id, min(rel.since) as since
      from rel join fundraisers f on f.id = rel.fundraiser_id
     where f.deleted_at is null and f.owner_user_id <> :me
     group by f.id
  )`;

/**
 * Who an update reaches: users connected to its campaign by a relationship that began at or
 * before the update was posted, never the campaign's owner or the update's author, and only
 * while the campaign is readable by that relationship (feed rule 3: follows public active or
 * ended campaigns, gifts also paused and unlisted ones).
 */
export async function recipients(db: Q, updateId: string): Promise<string[]> {
  const r = await db.raw(
    `select x.user_id
       from project_updates u
       join fundraisers f on f.id = u.fundraiser_id
       cross join lateral (
         select fo.follower_id as user_id from follows fo
          where fo.deleted_at is null and fo.created_at <= u.created_at and ${FOLLOW_READABLE}
            and ((f.org_id is null and fo.following_type = 'user' and fo.following_id = f.owner_user_id)
              or (f.org_id is not null and fo.following_type = 'organization' and fo.following_id = f.org_id))
         union
         select d.donor_user_id from donations d
          where d.fundraiser_id = f.id and d.status = 'paid' and d.donor_user_id is not null and d.paid_at <= u.created_at
       ) x
      where u.id = ? and u.deleted_at is null and f.deleted_at is null and ${GIFT_READABLE}
        and x.user_id <> f.owner_user_id and x.user_id <> u.author_user_id`,
    [updateId],
  );
  return r.rows.map((row: { user_id: string }) => row.user_id);
}
