import jwt from 'jsonwebtoken';
import { parseAttestationKeys, type AttestationKey } from './keys';
import type { Attestation } from './replay.repo';

export { parseAttestationKeys } from './keys';
export { pruneExpiredAttestations, spendAttestation, type Attestation } from './replay.repo';

/** At most this long between an attestation's iat and exp: it is made for one request. */
const MAX_LIFETIME_S = 300;

const cache = new Map<string, AttestationKey[]>();

/**
 * Verifies an `X-App-Attestation` token: a compact JWS (ES256 or RS256) signed by one of the
 * APP_ATTESTATION_KEYS (chosen by `kid`), with `aud` = the service's PUBLIC_URL, `sub` (the app),
 * `jti`, and `iat`/`exp` at most five minutes apart. Answers null for anything else, including
 * when no keys are configured (then no attestation is accepted).
 */
export function verifyAttestation(keysJson: string | undefined, token: string, audience: string): Attestation | null {
  if (!keysJson || !token) return null;
  let keys = cache.get(keysJson);
  if (!keys) cache.set(keysJson, (keys = parseAttestationKeys(keysJson)));
  const header = jwt.decode(token, { complete: true })?.header;
  const key = keys.find((k) => k.kid === header?.kid);
  if (!key) return null;
  try {
    const claims = jwt.verify(token, key.key, { algorithms: ['ES256', 'RS256'], audience }) as jwt.JwtPayload;
    if (typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || !claims.jti) return null;
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number' || claims.exp - claims.iat > MAX_LIFETIME_S) return null;
    return { appId: claims.sub, jti: claims.jti, expiresAt: new Date(claims.exp * 1000) };
  } catch {
    return null;
  }
}
