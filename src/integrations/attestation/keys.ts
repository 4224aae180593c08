import { createPublicKey, type KeyObject } from 'node:crypto';

export interface AttestationKey {
  kid: string;
  key: KeyObject;
}

/**
 * APP_ATTESTATION_KEYS: a JWKS document (`{"keys":[{ "kid", "kty", ... }]}`) holding the public
 * keys of the services that attest native-app installs (an App Attest / Play Integrity backend
 * that signs a short-lived token for the app). Throws a one-line reason when it is unusable.
 */
export function parseAttestationKeys(json: string): AttestationKey[] {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    throw new Error('must be a JWKS JSON document');
  }
  const keys = (doc as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new Error('must hold a non-empty "keys" array');
  return keys.map((jwk, i) => {
    const kid = (jwk as { kid?: unknown })?.kid;
    if (typeof kid !== 'string' || !kid) throw new Error(`key ${i} has no "kid"`);
    try {
      return { kid, key: createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' }) };
    } catch {
      throw new Error(`key ${kid} is not a usable public JWK`);
    }
  });
}
