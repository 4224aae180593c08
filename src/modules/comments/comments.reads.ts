/**
 * Read-only view of comments as the API shows them. Foreign table it reads:
 * - users (idp): each comment's author (name, avatar, profile slug), joined so that a page of
 *   comments, its order and its paging stay one query.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export interface CommentRow {
  id: string;
  fundraiser_id: string;
  user_id: string;
  parent_id: string | null;
  body: string;
  gif_id: string | null;
  like_count: number;
  deleted_at: Date | null;
  created_at: Date;
  author_name: string | null;
  author_avatar: string | null;
  author_profile_slug: string | null;
  liked_by_me: boolean;
}

function withAuthor(db: Q, viewerId: string | null) {
  return db('comments as c')
    .join('users as u', 'u.id', 'c.user_id')
    .whereNull('c.deleted_at')
    .select(
      'c.id', 'c.fundraiser_id', 'c.user_id', 'c.parent_id', 'c.body', 'c.gif_id', 'c.like_count', 'c.deleted_at', 'c.created_at',
      'u.name as author_name', 'u.avatar as author_avatar', 'u.profile_slug as author_profile_slug',
      viewerId
        ? db.raw('exists (select 1 from comment_likes l where l.comment_id = c.id and l.user_id = ?) as liked_by_me', [viewerId])
        : db.raw('false as liked_by_me'),
    );
}

/** Top-level comments of a campaign, newest first, with the total for paging. */
export async function listTopLevel(db: Q, fundraiserId: string, viewerId: string | null, limit: number, offset: number, hiddenAuthors: string[] = []) {
  const [rows, count] = await Promise.all([
    withAuthor(db, viewerId)
      .where('c.fundraiser_id', fundraiserId)
      .whereNull('c.parent_id')
      .whereNotIn('c.user_id', hiddenAuthors)
      .orderBy([{ column: 'c.created_at', order: 'desc' }, { column: 'c.id', order: 'desc' }])
      .limit(limit)
      .offset(offset),
    db('comments')
      .where({ fundraiser_id: fundraiserId })
      .whereNull('parent_id')
      .whereNull('deleted_at')
      .whereNotIn('user_id', hiddenAuthors)
      .count<{ n: string }[]>({ n: '*' }),
  ]);
  return { rows: rows as CommentRow[], total: Number(count[0]?.n ?? 0) };
}

/** Replies of the given top-level comments, oldest first. */
export async function repliesOf(db: Q, parentIds: string[], viewerId: string | null, hiddenAuthors: string[] = []): Promise<CommentRow[]> {
  if (parentIds.length === 0) return [];
  return (await withAuthor(db, viewerId)
    .whereIn('c.parent_id', parentIds)
    .whereNotIn('c.user_id', hiddenAuthors)
    .orderBy([{ column: 'c.created_at', order: 'asc' }, { column: 'c.id', order: 'asc' }])) as CommentRow[];
}

export async function findOne(db: Q, id: string, viewerId: string | null): Promise<CommentRow | undefined> {
  return (await withAuthor(db, viewerId).where('c.id', id).first()) as CommentRow | undefined;
}
