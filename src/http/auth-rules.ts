import type { Request } from 'express';
import type { Actor, PlatformRole } from './actor';
import { ApiError } from './errors';
import { CREDENTIAL_PERMISSIONS, permissionDenied } from './permissions';

/**
 * none: no credential looked at. optional: a credential changes the answer. required: any valid
 * credential. cookie: a browser session only (401 `Not authenticated` for bearers).
 * session-only: the account holder signed in themself (browser cookies or a native app's ID token);
 * an API key or a session of staff viewing as the user answers 403 with required_permission.
 * { role }: a platform role (staff, admin, ...): 403 with required_permission.
 */
export type AuthRule = 'none' | 'optional' | 'required' | 'cookie' | 'session-only' | { role: PlatformRole };

export const notAuthenticated = () => new ApiError(401, 'Not authenticated', 'Sign in to continue');

export function hasRole(actor: Actor, role: PlatformRole): boolean {
  // Admins hold every staff power.
  return actor.roles.includes(role) || (role === 'staff' && actor.roles.includes('admin'));
}

export function enforceAuth(rule: AuthRule, actor: Actor | null, _req: Request): void {
  if (rule === 'none' || rule === 'optional') return;
  if (!actor) throw notAuthenticated();
  if (rule === 'required') return;
  if (rule === 'cookie') {
    if (actor.credential !== 'session') throw notAuthenticated();
    return;
  }
  if (rule === 'session-only') {
    if (actor.credential === 'api_key' || actor.impersonatedBy) {
      throw new ApiError(403, 'Forbidden', 'This operation needs your own signed-in session', {
        code: actor.credential === 'api_key' ? 'API_KEY_NOT_ALLOWED' : 'SESSION_REQUIRED',
        required_permission: CREDENTIAL_PERMISSIONS.manageKeys,
      });
    }
    return;
  }
  if (!hasRole(actor, rule.role)) throw permissionDenied(`platform.${rule.role}`);
}
