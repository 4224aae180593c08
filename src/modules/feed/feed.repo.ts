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
 *
 * The feed reads follows and donations in one statement: joining them in SQL is what keeps it
 * fast for a user who follows a thousand holders (bench/feed.ts).
 */
const CONNECTED = `
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

/** Keyset position: the exact created_at (microseconds, as text) and id of the last item served. */
export interface FeedKey {
  ts: string;
  id: string;
}

export interface FeedRow {
  id: string;
  fundraiser_id: string;
  title: string | null;
  body: string;
  language: string;
  like_count: number;
  created_at: Date;
  created_key: string;
  edited_at: Date | null;
  since: Date;
  mark_at: Date | null;
  liked_by_me: boolean;
  author_id: string;
  author_name: string | null;
  author_avatar: string | null;
  f_title: string;
  f_slug: string;
  f_cover_image: string | null;
}

/**
 * One page, newest first. Each connected campaign contributes at most `limit` rows through its
 * (fundraiser_id, created_at desc, id desc) index, so the work grows with the number of
 * campaigns, not with their history.
 */
export async function page(db: Q, me: string, limit: number, after: FeedKey | null, lang: string | null): Promise<FeedRow[]> {
  // The per-campaign scans read only (id, created_at) from the partial index (an index-only scan
  // that stops after `limit` entries); the wide rows are fetched for the final page alone.
  const r = await db.raw(
    `with ${CONNECTED},
     keys as (
       select k.id, k.created_at, c.since
         from conn c
         cross join lateral (
           select u.id, u.created_at
             from project_updates u
            where u.fundraiser_id = c.id and u.deleted_at is null
              ${after ? 'and (u.created_at, u.id) < (:ts::timestamptz, :id::uuid)' : ''}
            order by u.created_at desc, u.id desc
            limit :limit
         ) k
        order by k.created_at desc, k.id desc
        limit :limit
     )
     select pg.id, pg.fundraiser_id, pg.language, pg.like_count, pg.created_at, pg.edited_at, keys.since,
            coalesce(t.title, pg.title) as title, coalesce(t.body, pg.body) as body,
            to_char(pg.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key,
            r.read_at as mark_at,
            exists (select 1 from update_likes l where l.update_id = pg.id and l.user_id = :me) as liked_by_me,
            a.id as author_id, a.name as author_name, a.avatar as author_avatar,
            f.title as f_title, f.slug as f_slug, f.cover_image as f_cover_image
       from keys
       join project_updates pg on pg.id = keys.id
       join fundraisers f on f.id = pg.fundraiser_id
       join users a on a.id = pg.author_user_id
       left join campaign_update_reads r on r.user_id = :me and r.update_id = pg.id
       left join update_translations t on t.update_id = pg.id and t.lang = :lang and pg.language <> :lang
      order by keys.created_at desc, keys.id desc`,
    { me, limit, lang: lang ?? '', ts: after?.ts ?? null, id: after?.id ?? null },
  );
  return r.rows;
}

/** Unread: posted since the relationship began, live, and not marked read. */
export async function unreadCount(db: Q, me: string): Promise<number> {
  const r = await db.raw(
    `with ${CONNECTED}
     select count(*)::int as n
       from conn c
       join project_updates u on u.fundraiser_id = c.id and u.deleted_at is null and u.created_at >= c.since
      where not exists (select 1 from campaign_update_reads r where r.user_id = :me and r.update_id = u.id)`,
    { me },
  );
  return Number(r.rows[0]?.n ?? 0);
}

/** The update as it stands in :me's feed (with its relationship start), or undefined when it is not there. */
export async function inFeed(db: Q, me: string, updateId: string): Promise<{ id: string; created_at: Date; since: Date } | undefined> {
  const r = await db.raw(
    `with ${CONNECTED}
     select u.id, u.created_at, c.since
       from project_updates u join conn c on c.id = u.fundraiser_id
      where u.id = :updateId and u.deleted_at is null`,
    { me, updateId },
  );
  return r.rows[0];
}

export async function markRead(db: Q, me: string, updateId: string): Promise<number> {
  const r = await db.raw(
    'insert into campaign_update_reads (user_id, update_id) values (?, ?) on conflict do nothing',
    [me, updateId],
  );
  return r.rowCount ?? 0;
}

/**
 * Marks every unread item of :me's feed (posted at or before `until` when given) read; answers
 * how many. created_at is stored to the microsecond but printed to the millisecond, so `until`
 * is compared at the precision the caller saw (an item's own printed created_at includes it).
 */
export async function markAllRead(db: Q, me: string, until: string | null): Promise<number> {
  const r = await db.raw(
    `with ${CONNECTED}
     insert into campaign_update_reads (user_id, update_id)
     select :me, u.id
       from conn c
       join project_updates u on u.fundraiser_id = c.id and u.deleted_at is null and u.created_at >= c.since
      where (:until::timestamptz is null or date_trunc('milliseconds', u.created_at) <= :until::timestamptz)
     on conflict do nothing`,
    { me, until },
  );
  return r.rowCount ?? 0;
}

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

export async function updateBrief(db: Q, updateId: string) {
  return db('project_updates as u')
    .join('fundraisers as f', 'f.id', 'u.fundraiser_id')
    .where('u.id', updateId)
    .first('u.id', 'u.title', 'u.language', 'f.id as fundraiser_id', 'f.title as fundraiser_title', 'f.slug');
}
