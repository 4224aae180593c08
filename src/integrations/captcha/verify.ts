import type { Config } from '../../config';

const VERIFY_TIMEOUT_MS = 5_000;
// reCAPTCHA / hCaptcha / Turnstile tokens are a few KB at most; anything longer is not a token.
const MAX_TOKEN_LENGTH = 8_192;

/**
 * Asks the siteverify-compatible endpoint (reCAPTCHA, hCaptcha, Turnstile all take a form-encoded
 * `secret` + `response` and answer `{ success }`). Anything but `success: true` is a failure,
 * including an unreachable or misbehaving endpoint: failing closed keeps an outage of the CAPTCHA
 * vendor from turning the CAPTCHA off for attackers (the user sees 403 and can retry).
 */
export async function verifyCaptchaToken(
  config: Pick<Config, 'CAPTCHA_SECRET' | 'CAPTCHA_VERIFY_URL'>,
  token: string,
  remoteIp?: string,
  log?: { warn: (obj: object, msg: string) => void },
): Promise<boolean> {
  if (!config.CAPTCHA_SECRET || !token || token.length > MAX_TOKEN_LENGTH) return false;
  const form = new URLSearchParams({ secret: config.CAPTCHA_SECRET, response: token });
  if (remoteIp) form.set('remoteip', remoteIp);
  try {
    const res = await fetch(config.CAPTCHA_VERIFY_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
    });
    if (!res.ok) {
      log?.warn({ status: res.status }, 'CAPTCHA verify endpoint answered an error status');
      return false;
    }
    const body = (await res.json()) as { success?: unknown };
    return body?.success === true;
  } catch (err) {
    log?.warn({ err: (err as Error).message }, 'CAPTCHA verify endpoint unreachable; treating the token as failed');
    return false;
  }
}
