import type { AppContext } from '../context';
import { spendAttestation, verifyAttestation } from '../integrations/attestation';
import { verifyCaptchaToken } from '../integrations/captcha/verify';
import type { Actor } from './actor';
import { CAPTCHA_FAILED } from './captcha-gate';
import { ApiError } from './errors';

export const ATTESTATION_HEADER = 'x-app-attestation';

/**
 * Guests who pay (donations, payment intents, tips) prove they are people when CAPTCHA is
 * configured: a passing `captchaToken`, or a valid one-time native-app attestation in
 * `X-App-Attestation` (APP_ATTESTATION_KEYS). Missing or failing → 403 `{ captchaFailed: true }`.
 * Signed-in callers and a service without CAPTCHA_SECRET skip the check.
 */
export interface HumanProof {
  captchaToken?: string;
  /** The X-App-Attestation header's value. */
  attestation?: string;
  ip?: string;
}

export async function requireHumanGuest(ctx: AppContext, actor: Actor | null, proof: HumanProof): Promise<void> {
  if (actor || !ctx.config.CAPTCHA_SECRET) return;
  const { attestation, captchaToken } = proof;
  if (attestation) {
    const a = verifyAttestation(ctx.config.APP_ATTESTATION_KEYS, attestation.trim(), ctx.config.PUBLIC_URL);
    if (a && (await spendAttestation(ctx.db, a))) return;
  } else if (captchaToken && (await verifyCaptchaToken(ctx.config, captchaToken.trim(), proof.ip, ctx.log))) {
    return;
  }
  throw new ApiError(403, CAPTCHA_FAILED, 'Complete the CAPTCHA (or send a valid app attestation) and try again.', { captchaFailed: true });
}
