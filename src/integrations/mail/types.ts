import type { Request } from 'express';

export const LOCALES = ['en', 'ru', 'uk', 'es'] as const;
export type Locale = (typeof LOCALES)[number];
export type MailTemplate = 'email_verification' | 'private_contact_verification' | 'password_reset';

const isLocale = (v: unknown): v is Locale => typeof v === 'string' && (LOCALES as readonly string[]).includes(v);

/** A user's stored locale, or English when it is not one of the four. */
export function toLocale(value: string | null | undefined): Locale {
  const v = (value ?? '').toLowerCase().slice(0, 2);
  return isLocale(v) ? v : 'en';
}

/**
 * The locale a request asks for, as the site names it everywhere else: the `lang` query, then the
 * `lang` cookie, then Accept-Language (`ru-RU` counts as `ru`); null when none names one of the four.
 * Accounts created by a request store it, so their mails (verification, password reset) use it.
 */
export function requestLocale(req: Pick<Request, 'query' | 'cookies' | 'headers' | 'acceptsLanguages'>): Locale | null {
  const q = req.query?.lang;
  const fromQuery = typeof q === 'string' ? q.trim().toLowerCase() : undefined;
  if (isLocale(fromQuery)) return fromQuery;
  const c = (req.cookies as Record<string, unknown> | undefined)?.lang;
  const fromCookie = typeof c === 'string' ? c.trim().toLowerCase() : undefined;
  if (isLocale(fromCookie)) return fromCookie;
  if (req.headers?.['accept-language']) {
    const best = req.acceptsLanguages([...LOCALES]);
    if (isLocale(best)) return best;
  }
  return null;
}
