// CONTRACT STUB (owner: identity sessions work). Replace the body, keep the signature.
import type { Response } from 'express';
import type { AppContext } from '../../context';

export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  avatar: string | null;
  role: string;
  email_verified: boolean;
  profile_slug: string | null;
}

/** Signs `userId` in: issues tokens from the identity provider and sets the three session cookies. */
export async function issueSessionForUser(_ctx: AppContext, _res: Response, _userId: string): Promise<SessionUser> {
  throw new Error('not implemented yet');
}
