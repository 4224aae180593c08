import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { pageLimit, pageOffset } from '../../http/schema-helpers';
import type { FollowRow } from './follows.repo';

export const followingType = z.enum(['user', 'organization']);

export const followBody = z.object({ following_id: uuid, following_type: followingType });
export const unfollowParams = z.object({ following_type: followingType, following_id: uuid });
export const listQuery = z.object({ limit: pageLimit(), offset: pageOffset() });

export const followRead = z.object({
  id: z.string(),
  following_id: z.string(),
  following_type: followingType,
  created_at: z.string(),
}).meta({ id: 'Follow' });
export const followEnvelope = z.object({ data: followRead });
export const followList = z.object({
  data: z.array(followRead),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});

export function toFollow(r: FollowRow): z.infer<typeof followRead> {
  return { id: r.id, following_id: r.following_id, following_type: r.following_type, created_at: new Date(r.created_at).toISOString() };
}
