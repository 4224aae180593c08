import { defineRoutes, idParams, route } from '../../http/define-routes';
import { authoredComment, authorOfComment } from './comments.policy';
import { commentEnvelope, commentList, createCommentBody, deletedAnswer, likeAnswer, listQuery } from './comments.schemas';
import * as service from './comments.service';

const likeDoc = 'Idempotent; answers the comment\'s like count and whether the caller likes it now. 404 for unknown or deleted comments and comments on campaigns the caller cannot read.';

/** PUT likes, DELETE unlikes; both idempotent and answer the count after the write. */
function likeRoute(method: 'put' | 'delete', summary: string, liked: boolean) {
  return route({
    method,
    path: '/comments/:id/like',
    skipGlobalLimiter: true,
    summary,
    description: likeDoc,
    auth: 'required',
    flag: 'features.comments',
    limiters: ['authenticated'],
    params: idParams,
    response: likeAnswer,
    errors: [404],
    handler: async ({ ctx, actor, params }) => service.setLike(ctx, actor, params.id, liked),
  });
}

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/fundraisers/:id/comments',
      skipGlobalLimiter: true,
      summary: 'Comments of a campaign',
      description:
        'Top-level comments newest first, paged ({ data, pagination }); each carries its replies (oldest first) in `replies`. A credential is optional: it fills liked_by_me (false for guests) and lets the owner read comments of an unpublished campaign. 404 when the campaign is not readable. The campaign\'s holder (an organization\'s campaign: its owner) and, for a reply, the parent comment\'s author get a `comment_received` notification (never the commenter).',
      auth: 'optional',
      limiters: ['public'],
      params: idParams,
      query: listQuery,
      response: commentList,
      errors: [404],
      handler: async ({ ctx, actor, params, query }) => service.listComments(ctx, actor, params.id, query.limit, query.offset),
    }),
    route({
      method: 'post',
      // One parameter name per position across modules (`/fundraisers/:id/...`), so the document has one path.
      path: '/fundraisers/:id/comments',
      summary: 'Comment on a campaign',
      description:
        'Needs a verified email (403 EMAIL_NOT_VERIFIED). Body { body, parent_id?, gif_id? }; body is plain text (markup removed), 1 to 5000 characters, or empty with a gif_id. With gif_id the GIF bucket (60/min) applies. 404 when the campaign is not readable. The campaign\'s holder (an organization\'s campaign: its owner) and, for a reply, the parent comment\'s author get a `comment_received` notification (never the commenter).',
      auth: 'required',
      flag: 'features.comments',
      limiters: [{ name: 'gifs', when: (req) => Boolean((req.body as { gif_id?: unknown } | undefined)?.gif_id) }],
      params: idParams,
      body: createCommentBody,
      status: 201,
      response: commentEnvelope,
      errors: [404],
      handler: async ({ ctx, actor, params, body }) => ({ data: await service.createComment(ctx, actor, params.id, body) }),
    }),
    route({
      method: 'delete',
      path: '/comments/:id',
      summary: 'Delete your comment',
      description: 'Author only (403 for others, 404 when unknown or already deleted). The comment is hidden and kept; its replies are hidden with it.',
      auth: 'required',
      policy: authorOfComment,
      params: idParams,
      response: deletedAnswer,
      errors: [403, 404],
      handler: async ({ req, ctx }) => service.deleteComment(ctx, authoredComment(req)),
    }),
    likeRoute('put', 'Like a comment', true),
    likeRoute('delete', 'Remove your like from a comment', false),
  ],
  { tag: 'comments' },
);
