import type { Knex } from 'knex';
import { appSecret, sign, verify } from '../../infra/signed-token';

/**
 * Download links of exports: signed (HMAC with a kept secret) and valid for 7 days, so a link
 * in a mail works without a session and nobody can make one for another export.
 */
const SECRET = 'privacy_export_link_secret';
const PURPOSE = 'privacy-export';
export const EXPORT_LINK_DAYS = 7;

export async function exportLinkToken(db: Knex, exportId: string, expiresAt: Date): Promise<string> {
  return sign(await appSecret(db, SECRET), PURPOSE, { e: exportId, x: Math.floor(expiresAt.getTime() / 1000) });
}

/** The export id a token names while it is still valid, else null. */
export async function exportOfToken(db: Knex, token: string): Promise<string | null> {
  const p = verify(await appSecret(db, SECRET), PURPOSE, token) as { e?: unknown; x?: unknown } | null;
  if (!p || typeof p.e !== 'string' || typeof p.x !== 'number') return null;
  return p.x * 1000 > Date.now() ? p.e : null;
}

export const downloadUrl = (baseUrl: string, exportId: string, token: string) =>
  `${baseUrl}/privacy/exports/${exportId}/download?token=${encodeURIComponent(token)}`;
