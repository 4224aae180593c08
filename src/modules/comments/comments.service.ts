import type { AppContext } from '../../context';
import { emit } from '../../events';
import type { Actor } from '../../http/actor';
import { ApiError, notFound } from '../../http/errors';
import { requireVerifiedEmail } from '../../http/verified-email';
import { blockedIds, isBlocked } from '../blocks';
import { plainText } from '../../infra/plain-text';
import { canRead, findById, readable } from '../fundraisers';
import * as reads from './comments.reads';
import type { CommentRow } from './comments.reads';
import * as repo from './comments.repo';

export function toComment(r: CommentRow) {
  return {
    id: r.id,
    fundraiser_id: r.fundraiser_id,
    parent_id: r.parent_id,
    body: r.body,
    gif_id: r.gif_id,
    like_count: Number(r.like_count),
    liked_by_me: Boolean(r.liked_by_me),
    author: { id: r.user_id, name: r.author_name, avatar: r.author_avatar, profile_slug: r.author_profile_slug },
    created_at: new Date(r.created_at).toISOString(),
  };
}

export async function listComments(ctx: AppContext, actor: Actor | null, fundraiserId: string, limit: number, offset: number) {
  // Comments exist only on campaigns the caller may read.
  await readable(ctx, actor, { id: fundraiserId });
  const viewer = actor?.userId ?? null;
  // A blocker no longer sees the comments of the users they blocked.
  const hidden = viewer ? await blockedIds(ctx.db, viewer) : [];
  const { rows, total } = await reads.listTopLevel(ctx.db, fundraiserId, viewer, limit, offset, hidden);
  const replies = await reads.repliesOf(ctx.db, rows.map((r) => r.id), viewer, hidden);
  const byParent = new Map<string, ReturnType<typeof toComment>[]>();
  for (const r of replies) {
    const list = byParent.get(r.parent_id!) ?? [];
    list.push(toComment(r));
    byParent.set(r.parent_id!, list);
  }
  return {
    data: rows.map((r) => ({ ...toComment(r), replies: byParent.get(r.id) ?? [] })),
    pagination: { limit, offset, total },
  };
}

export async function createComment(
  ctx: AppContext,
  actor: Actor,
  fundraiserId: string,
  input: { body: string; parent_id?: string | null; gif_id?: string | null },
) {
  requireVerifiedEmail(actor);
  const f = await readable(ctx, actor, { id: fundraiserId });
  // readable lets an owner see a deleted campaign; nobody comments on one.
  if (f.deleted_at) throw notFound('Fundraiser');
  if (await isBlocked(ctx.db, f.owner_user_id, actor.userId)) {
    throw new ApiError(403, 'Forbidden', 'The campaign owner does not accept your comments', { code: 'BLOCKED' });
  }
  // Comments are plain text: markup is dropped (script/style content included), text kept as typed.
  const body = plainText(input.body);
  if (body === null) {
    throw new ApiError(400, 'Validation failed', 'body.body: too many levels of HTML entity encoding', {
      details: [{ path: 'body.body', message: 'too many levels of HTML entity encoding' }],
    });
  }
  const gif = input.gif_id ?? null;
  if (!body && !gif) {
    throw new ApiError(400, 'Validation failed', 'body.body: a comment needs text or a GIF', {
      details: [{ path: 'body.body', message: 'a comment needs text or a GIF' }],
    });
  }
  let parentId: string | null = null;
  if (input.parent_id) {
    const parent = await reads.findOne(ctx.db, input.parent_id, null);
    if (!parent || parent.fundraiser_id !== f.id) {
      throw new ApiError(400, 'Validation failed', 'body.parent_id: no such comment on this campaign', {
        details: [{ path: 'body.parent_id', message: 'no such comment on this campaign' }],
      });
    }
    // One level of threading: a reply to a reply joins its top-level thread.
    parentId = parent.parent_id ?? parent.id;
  }
  // The comment and its event in one transaction: the holder's (and parent author's) notification follows it.
  const id = await ctx.db.transaction(async (trx) => {
    const newId = await repo.insert(trx, { fundraiser_id: f.id, user_id: actor.userId, parent_id: parentId, body, gif_id: gif });
    await emit(trx, 'comment.created', { comment_id: newId, fundraiser_id: f.id, author_user_id: actor.userId, parent_id: parentId, created_at: new Date().toISOString() });
    return newId;
  });
  return toComment((await reads.findOne(ctx.db, id, actor.userId))!);
}

/** A visible comment on a campaign the caller may read, else 404. */
export async function visibleComment(ctx: AppContext, actor: Actor, id: string): Promise<CommentRow> {
  const c = await reads.findOne(ctx.db, id, actor.userId);
  if (!c) throw notFound('Comment');
  const f = await findById(ctx.db, c.fundraiser_id);
  if (!f || !canRead(f, actor)) throw notFound('Comment');
  return c;
}

/** `c` passed the authorOfComment policy. */
export async function deleteComment(ctx: AppContext, c: CommentRow) {
  await repo.softDelete(ctx.db, c.id);
  return { message: 'Comment deleted', id: c.id };
}

export async function setLike(ctx: AppContext, actor: Actor, id: string, liked: boolean) {
  const c = await visibleComment(ctx, actor, id);
  const like_count = await ctx.db.transaction((trx) => repo.setLike(trx, c.id, actor.userId, liked));
  return { like_count, liked };
}
