// CONTRACT STUB (owner: CAPTCHA work). Replace the bodies, keep the signatures.
import type { Request } from 'express';
import type { AppContext } from '../../context';

export type CaptchaAction = 'signup' | 'signin';

/**
 * Before sign-up / sign-in: at elevated risk without captchaToken throws ApiError 429
 * `{ requiresCaptcha: true, reason }`; a failing token throws 403 `{ captchaFailed: true }`.
 * With no CAPTCHA_SECRET it never requires anything.
 */
export async function checkCaptcha(
  _ctx: AppContext,
  _req: Request,
  _input: { action: CaptchaAction; email?: string; captchaToken?: string },
): Promise<void> {
  // stub
}

/** Records a failed attempt (bad password, bad sign-up) for the IP and the address. */
export async function recordAuthFailure(_ctx: AppContext, _req: Request, _email?: string): Promise<void> {
  // stub
}

/** Clears the address's failure count after a successful sign-in. */
export async function clearAuthFailures(_ctx: AppContext, _req: Request, _email?: string): Promise<void> {
  // stub
}
