import type { Request } from 'express';
import { ApiError } from '../../http/errors';
import { policyResult, type SignedInPolicy } from '../../http/policy-result';
import type { CommentRow } from './comments.reads';
import { visibleComment } from './comments.service';

const authored = policyResult<CommentRow>('authorOfComment');

/**
 * Author-only comment writes. A comment the caller cannot see (unknown, deleted, or on a
 * campaign they cannot read) is 404 first; a visible comment of someone else is 403.
 */
export const authorOfComment: SignedInPolicy<{ id: string }> = {
  describe: 'the caller wrote the comment (403 for others; 404 when the comment is not visible to the caller)',
  async check({ req, ctx, actor, params }) {
    const comment = await visibleComment(ctx, actor, params.id);
    if (comment.user_id !== actor.userId) throw new ApiError(403, 'Forbidden', 'Only the author can delete this comment');
    authored.set(req, comment);
  },
};

/** The comment `authorOfComment` loaded for this request. */
export const authoredComment = (req: Request): CommentRow => authored.get(req);
