import type { Request } from 'express';
import type { Actor } from './actor';

/**
 * Turns a request into an actor (or null for a guest). Throws ApiError(401) for a credential
 * that is present but invalid. The identity module installs the real resolver. Credentials
 * travel only in the Cookie and Authorization headers, so a request with neither is a guest
 * without asking the resolver.
 */
export interface CredentialResolver {
  resolve(req: Request): Promise<Actor | null>;
}

export const anonymousResolver: CredentialResolver = { resolve: async () => null };

const ACTOR = Symbol('actor');
type WithActor = Request & { [ACTOR]?: Promise<Actor | null> };

const GUEST: Promise<Actor | null> = Promise.resolve(null);

/** Resolves once per request; rate-limit key generators and the auth rule share the result. */
export function actorOf(req: Request, resolver: CredentialResolver): Promise<Actor | null> {
  const r = req as WithActor;
  if (!r[ACTOR]) r[ACTOR] = req.headers.cookie === undefined && req.headers.authorization === undefined ? GUEST : resolver.resolve(req);
  return r[ACTOR]!;
}

/** Like actorOf, but a bad credential counts as a guest (for rate-limit keys). */
export async function actorOrNull(req: Request, resolver: CredentialResolver): Promise<Actor | null> {
  try {
    return await actorOf(req, resolver);
  } catch {
    return null;
  }
}
