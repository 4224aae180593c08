// Adaptive CAPTCHA for sign-up and sign-in (spec "Authentication" point 9). Called by the identity
// routes: checkCaptcha before the attempt, recordAuthFailure after a failed one, clearAuthFailures
// after a successful sign-in; guest payments check it too. It lives in http/ because it reads
// the request and answers ApiError, which integrations must not depend on.
import type { Request } from 'express';
import type { AppContext } from '../context';
import { ApiError } from './errors';
import { clientIp } from './client-ip';
import { riskCounterFor, type RiskAssessment } from '../integrations/captcha/risk';
import { verifyCaptchaToken } from '../integrations/captcha/verify';

export type CaptchaAction = 'signup' | 'signin';

export const CAPTCHA_REQUIRED = 'CAPTCHA required';
export const CAPTCHA_FAILED = 'CAPTCHA verification failed';

const REQUIRED_MESSAGES: Record<NonNullable<RiskAssessment['reason']>, string> = {
  too_many_failures: 'Too many failed attempts for this account. Complete the CAPTCHA and try again.',
  too_many_attempts_from_ip: 'Too many failed attempts from your network. Complete the CAPTCHA and try again.',
};

/**
 * Before sign-up / sign-in: at elevated risk without captchaToken throws ApiError 429
 * `{ requiresCaptcha: true, reason }`; a failing token throws 403 `{ captchaFailed: true }`.
 * With no CAPTCHA_SECRET it never requires anything. At low risk a supplied token is ignored
 * (the CAPTCHA vendor is only called when the token is actually needed).
 */
export async function checkCaptcha(
  ctx: AppContext,
  req: Request,
  input: { action: CaptchaAction; email?: string; captchaToken?: string },
): Promise<void> {
  if (!ctx.config.CAPTCHA_SECRET) return;
  let risk: RiskAssessment;
  try {
    risk = await riskCounterFor(ctx).assess({ ip: clientIp(req), email: input.email });
  } catch (err) {
    // Same policy as the rate limiters: an unreachable store must not lock everyone out.
    ctx.log.warn({ err: (err as Error).message }, 'CAPTCHA risk store unavailable; treating risk as low');
    return;
  }
  if (!risk.elevated || !risk.reason) return;
  const token = typeof input.captchaToken === 'string' ? input.captchaToken.trim() : '';
  if (!token) {
    throw new ApiError(429, CAPTCHA_REQUIRED, REQUIRED_MESSAGES[risk.reason], {
      requiresCaptcha: true,
      reason: risk.reason,
    });
  }
  const ok = await verifyCaptchaToken(ctx.config, token, req.ip, ctx.log);
  if (!ok) {
    throw new ApiError(403, CAPTCHA_FAILED, 'The CAPTCHA could not be verified. Please try again.', {
      captchaFailed: true,
    });
  }
}

/** Records a failed attempt (bad password, bad sign-up) for the IP and the address. */
export async function recordAuthFailure(ctx: AppContext, req: Request, email?: string): Promise<void> {
  try {
    await riskCounterFor(ctx).recordFailure({ ip: clientIp(req), email });
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'CAPTCHA risk store unavailable; failure not recorded');
  }
}

/** Clears the address's failure count after a successful sign-in. */
export async function clearAuthFailures(ctx: AppContext, req: Request, email?: string): Promise<void> {
  try {
    await riskCounterFor(ctx).clear({ ip: clientIp(req), email });
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'CAPTCHA risk store unavailable; failures not cleared');
  }
}
