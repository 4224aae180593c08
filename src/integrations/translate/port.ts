/** The four locales the service writes and translates text in. */
export const LOCALES = ['en', 'ru', 'uk', 'es'] as const;
export type Locale = (typeof LOCALES)[number];
export const isLocale = (v: unknown): v is Locale => typeof v === 'string' && (LOCALES as readonly string[]).includes(v);

/** Machine translation of plain text between two locales. */
export interface Translator {
  readonly name: string;
  translate(text: string, source: Locale, target: Locale): Promise<string>;
}

/** The translation service could not be reached or answered something unusable. */
export class TranslatorError extends Error {}
