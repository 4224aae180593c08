export const LOCALES = ['en', 'ru', 'uk', 'es'] as const;
export type Locale = (typeof LOCALES)[number];
export type MailTemplate = 'email_verification' | 'private_contact_verification' | 'password_reset';

/** A user's stored locale, or English when it is not one of the four. */
export function toLocale(value: string | null | undefined): Locale {
  const v = (value ?? '').toLowerCase().slice(0, 2);
  return (LOCALES as readonly string[]).includes(v) ? (v as Locale) : 'en';
}
