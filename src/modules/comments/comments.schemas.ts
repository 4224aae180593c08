import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { pageLimit, pageOffset } from '../../http/schema-helpers';

export const COMMENT_MAX = 5000;

export const createCommentBody = z
  .object({
    body: z.string().max(COMMENT_MAX).default('').describe('Plain text (tags are stripped); may be empty only with gif_id'),
    parent_id: uuid.nullable().optional().describe('Reply to this comment; replies to a reply join the top-level thread'),
    gif_id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be a GIF id')
      .nullable()
      .optional(),
  });

export const listQuery = z.object({ limit: pageLimit(), offset: pageOffset() });

const author = z.object({ id: uuid, name: z.string().nullable(), avatar: z.string().nullable(), profile_slug: z.string().nullable() });

const commentBase = z.object({
  id: uuid,
  fundraiser_id: uuid,
  parent_id: uuid.nullable(),
  body: z.string(),
  gif_id: z.string().nullable(),
  like_count: z.number().int(),
  liked_by_me: z.boolean(),
  author,
  created_at: z.string(),
});

export const commentSchema = commentBase;
export const commentWithReplies = commentBase.extend({ replies: z.array(commentBase).describe('oldest first') }).meta({ id: 'Comment' });

export const commentEnvelope = z.object({ data: commentSchema });
export const commentList = z.object({
  data: z.array(commentWithReplies),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});
export const likeAnswer = z.object({ like_count: z.number().int(), liked: z.boolean() });
export const deletedAnswer = z.object({ message: z.string(), id: uuid });
