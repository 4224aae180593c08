import type { Response } from 'express';
import type { AppContext } from '../../context';
import { setSessionCookies } from '../../http/cookies';
import { ApiError, notFound } from '../../http/errors';
import * as repo from './idp.repo';

export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  avatar: string | null;
  role: string;
  email_verified: boolean;
  profile_slug: string | null;
}

const ROLE_RANK = ['admin', 'staff', 'ambassador', 'user'];

/** The account's highest platform role (the session user carries one `role`). */
export function primaryRole(roles: string[]): string {
  return ROLE_RANK.find((r) => roles.includes(r)) ?? 'user';
}

export function toSessionUser(u: repo.UserRow): SessionUser {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    avatar: u.avatar,
    role: primaryRole(u.roles),
    email_verified: u.email_verified,
    profile_slug: u.profile_slug,
  };
}

export async function loadSessionUser(ctx: AppContext, userId: string): Promise<SessionUser> {
  const u = await repo.findUserById(ctx.db, userId);
  if (!u) throw notFound('User');
  return toSessionUser(u);
}

/** Signs `userId` in: issues tokens from the identity provider and sets the three session cookies. */
export async function issueSessionForUser(ctx: AppContext, res: Response, userId: string): Promise<SessionUser> {
  const user = await repo.findUserById(ctx.db, userId);
  if (!user) throw notFound('User');
  if (user.status !== 'active') throw accountDisabled(user.status);
  const tokens = await ctx.idp.issueTokensForUser(userId);
  setSessionCookies(res, ctx.config, tokens);
  return toSessionUser(user);
}

export function accountDisabled(status: string): ApiError {
  return new ApiError(403, 'Account disabled', `This account is ${status}`, { code: `ACCOUNT_${status.toUpperCase()}` });
}
