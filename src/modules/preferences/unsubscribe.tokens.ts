import type { Knex } from 'knex';
import { ApiError } from '../../http/errors';
import { appSecret, sign, verify } from '../../infra/signed-token';
import type { NotificationCatalog } from '../notifications';
import type { UnsubscribeCategory } from './preferences.types';

const SECRET = 'unsubscribe_token_secret';
const PURPOSE = 'unsubscribe';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const invalidToken = () => new ApiError(400, 'Invalid unsubscribe token', 'This unsubscribe link is not valid');

/** Unsubscribe links never expire: a mail read months later must still work. */
export async function mintUnsubscribeToken(db: Knex, userId: string, category: UnsubscribeCategory): Promise<string> {
  return sign(await appSecret(db, SECRET), PURPOSE, { u: userId, c: category });
}

export async function readUnsubscribeToken(db: Knex, types: NotificationCatalog, token: unknown): Promise<{ userId: string; category: UnsubscribeCategory }> {
  const p = verify(await appSecret(db, SECRET), PURPOSE, token) as { u?: unknown; c?: unknown } | null;
  if (!p || typeof p.u !== 'string' || !UUID.test(p.u) || !(p.c === 'all' || types.hasToggle(p.c))) throw invalidToken();
  return { userId: p.u, category: p.c };
}

/** Where a mail's unsubscribe link points: the site's page, which previews and confirms through the API. */
export const unsubscribeUrl = (siteUrl: string, token: string) => `${siteUrl}/unsubscribe?token=${encodeURIComponent(token)}`;
