import type { Actor } from '../../http/actor';
import type { ProfileRow } from '../idp';

/** The caller's own profile. */
export const isSelf = (p: ProfileRow, actor: Actor | null): boolean => !!actor && actor.userId === p.id;

/** Whether a profile exists for this caller at all: others see only active accounts. */
export const profileExistsFor = (p: ProfileRow | undefined, actor: Actor | null): p is ProfileRow =>
  !!p && (p.status === 'active' || isSelf(p, actor));

/** Whether the caller may see what a profile holds (its page, badges, campaigns): the owner always, others unless private. */
export const profileOpenTo = (p: ProfileRow, actor: Actor | null): boolean => isSelf(p, actor) || !p.profile_private;
