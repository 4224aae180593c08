import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import type { AppContext } from '../../context';
import { cookieOptions } from '../../http/cookies';
import type { OAuthProvider } from '../../integrations/oauth/providers';

/**
 * The sign-in flow in progress (state, nonce, PKCE verifier, provider, redirect path) is kept
 * server side, in the shared cache (Redis when configured), under a random 256-bit id; the
 * browser only holds that id in a short-lived httpOnly cookie. Nothing secret travels in the
 * cookie, so it needs no signing key, and a flow can be used once only.
 */
export const FLOW_COOKIE = 'oauth_flow';
export const FLOW_TTL_MS = 10 * 60_000;

export interface OAuthFlow {
  provider: OAuthProvider;
  state: string;
  nonce: string;
  codeVerifier: string;
  redirect: string;
  /** The language of the page that started the flow; a new account keeps it for its mails. */
  locale?: string | null;
  createdAt: number;
}

const cacheKey = (id: string) => `oauth:flow:${id}`;
const FLOW_ID = /^[A-Za-z0-9_-]{43}$/;

export async function startFlow(ctx: AppContext, res: Response, flow: Omit<OAuthFlow, 'createdAt'>): Promise<void> {
  const id = randomBytes(32).toString('base64url');
  await ctx.cache.set<OAuthFlow>(cacheKey(id), { ...flow, createdAt: Date.now() }, FLOW_TTL_MS / 1000);
  res.cookie(FLOW_COOKIE, id, { ...cookieOptions(ctx.config), maxAge: FLOW_TTL_MS });
}

/**
 * Reads the browser's flow and ends it (one use): null when the cookie is missing or unknown,
 * or the flow is older than FLOW_TTL_MS. The cookie is cleared in every case.
 */
export async function takeFlow(ctx: AppContext, cookieValue: unknown, res: Response): Promise<OAuthFlow | null> {
  res.clearCookie(FLOW_COOKIE, cookieOptions(ctx.config));
  if (typeof cookieValue !== 'string' || !FLOW_ID.test(cookieValue)) return null;
  const flow = await ctx.cache.get<OAuthFlow>(cacheKey(cookieValue));
  if (!flow) return null;
  await ctx.cache.del(cacheKey(cookieValue));
  if (Date.now() - flow.createdAt > FLOW_TTL_MS) return null;
  return flow;
}
