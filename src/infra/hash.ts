import { createHash } from 'node:crypto';

/**
 * SHA-256 as lowercase hex: how every bearer secret (API keys, refresh tokens, verification
 * links, invitations, one-time codes) is stored and looked up, so the database never holds one in clear.
 */
export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');
