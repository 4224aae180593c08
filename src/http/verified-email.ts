import type { Actor } from './actor';
import { ApiError } from './errors';

export const EMAIL_NOT_VERIFIED_MESSAGE = 'Please verify your email address to continue';

export function emailNotVerified(): ApiError {
  return new ApiError(403, 'Forbidden', EMAIL_NOT_VERIFIED_MESSAGE, { code: 'EMAIL_NOT_VERIFIED', action: 'verify_email' });
}

/**
 * The verified-email gate (spec: Authentication 12): publishing, donating, registering an
 * organization, commenting, posting and editing updates, and reporting call this first.
 */
export function requireVerifiedEmail(actor: Pick<Actor, 'emailVerified'>): void {
  if (!actor.emailVerified) throw emailNotVerified();
}
