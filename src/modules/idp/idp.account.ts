import type { Request } from 'express';
import type { AppContext } from '../../context';
import type * as repo from './idp.repo';

/** The request's cookies as the session code reads them. */
export function cookiesOf(req: Request): Record<string, string | undefined> {
  return (req.cookies ?? {}) as Record<string, string | undefined>;
}

/** The identity provider's subject for an account (users.id locally, the pool's sub otherwise). */
export const subjectOf = (ctx: Pick<AppContext, 'idp'>, u: repo.UserRow) => (ctx.idp.kind === 'local' ? u.id : u.idp_subject);
