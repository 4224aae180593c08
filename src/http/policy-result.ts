import type { Request } from 'express';
import type { AuthRule } from './auth-rules';
import type { RoutePolicy } from './define-routes';

/** The auth rules that guarantee an actor: a policy declared for them may rely on one. */
export type SignedIn = Exclude<AuthRule, 'none' | 'optional'>;

/** A policy for any route whose auth rule guarantees an actor (a compile error on 'none'/'optional' routes). */
export type SignedInPolicy<P> = RoutePolicy<P, unknown, unknown, SignedIn>;

/**
 * What a route policy loaded (the owned row, the resolved account), handed to the handler so
 * the authorization and the work share one database read. Keyed weakly by the request, so it
 * lives exactly as long as the request.
 */
export function policyResult<T extends object>(policy: string) {
  const byRequest = new WeakMap<Request, T>();
  return {
    set(req: Request, value: T): T {
      byRequest.set(req, value);
      return value;
    },
    get(req: Request): T {
      const value = byRequest.get(req);
      // Reading it on a route that does not declare the policy is a wiring bug, never a client error.
      if (value === undefined) throw new Error(`the route does not declare the ${policy} policy`);
      return value;
    },
  };
}
