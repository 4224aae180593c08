/**
 * Read-only view of the campaign-updates feed's items. Foreign tables it reads (beyond the
 * connections of feed.connections.reads.ts):
 * - project_updates, update_likes, update_translations (updates): the updates, whether :me liked
 *   each, and their text in the reader's language;
 * - fundraisers (fundraisers): each item's campaign (title, slug, cover);
 * - users (idp): each update's author (name, avatar).
 * Each read is one statement from the connections WITH clause; campaign_update_reads is this
 * module's own table (read marks).
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { CONNECTED } from './feed.connections.reads';

type Q = Db | Knex.Transaction;

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

/**
 * `with ..., items as (...)`: the ids of :me's feed items (posted since the relationship began,
 * live) posted at or before :until (null: any). The repo's markAllRead inserts read marks from it.
 */
export const FEED_ITEMS_UNTIL = `with ${CONNECTED},
     items as (
       select u.id
         from conn c
         join project_updates u on u.fundraiser_id = c.id and u.deleted_at is null and u.created_at >= c.since
        where (:until::timestamptz is null or date_trunc('milliseconds', u.created_at) <= :until::timestamptz)
     )`;

export async function updateBrief(db: Q, updateId: string) {
  return db('project_updates as u')
    .join('fundraisers as f', 'f.id', 'u.fundraiser_id')
    .where('u.id', updateId)
    .first('u.id', 'u.title', 'u.language', 'f.id as fundraiser_id', 'f.title as fundraiser_title', 'f.slug');
}
