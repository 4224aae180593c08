import type { Actor } from '../../http/actor';
import type { ProfileRow } from '../idp';
import type { AchievementRow } from './achievements.repo';

const isEarner = (p: ProfileRow, actor: Actor | null) => !!actor && actor.userId === p.id;

/** Others see an account only while it is active; its owner always. */
export const accountVisible = (p: ProfileRow | undefined, actor: Actor | null): p is ProfileRow =>
  !!p && (p.status === 'active' || isEarner(p, actor));

/** A user's achievements: the earner always, others while the profile is public. */
export const achievementsOpenTo = (p: ProfileRow, actor: Actor | null): boolean => isEarner(p, actor) || !p.profile_private;

/**
 * One card: the earner always; others only for a public achievement (not one that would reveal
 * an anonymous gift) of an active account with a public profile.
 */
export const cardOpenTo = (a: AchievementRow, p: ProfileRow, actor: Actor | null): boolean =>
  isEarner(p, actor) || (a.public && p.status === 'active' && !p.profile_private);

/** Whether hidden achievements are listed too (only to their earner). */
export const seesHidden = (p: ProfileRow, actor: Actor | null): boolean => isEarner(p, actor);
