import type { Knex } from 'knex';
import { appSecret, sign, verify } from '../../../infra/signed-token';

/**
 * The capability in a monthly gift's mails: a guest donor manages the gift with it
 * (`?token=` on /recurring-gifts/{id}). Bound to one gift; it does not expire, as a receipt read
 * months later must still let the donor stop giving.
 */
const SECRET = 'recurring_gift_token_secret';
const PURPOSE = 'recurring-gift';

export async function mintGiftToken(db: Knex, giftId: string): Promise<string> {
  return sign(await appSecret(db, SECRET), PURPOSE, { g: giftId });
}

export async function tokenNamesGift(db: Knex, giftId: string, token: unknown): Promise<boolean> {
  const p = verify(await appSecret(db, SECRET), PURPOSE, token) as { g?: unknown } | null;
  return !!p && p.g === giftId;
}

/** The site's page for one monthly gift, signed for whoever holds the mail. */
export async function manageUrl(db: Knex, siteUrl: string, giftId: string): Promise<string> {
  return `${siteUrl}/recurring-gifts/${giftId}?token=${encodeURIComponent(await mintGiftToken(db, giftId))}`;
}
