import type { Lang } from '../fundraisers';

/**
 * The widget's words in the four locales. Templates keep their `{placeholders}` so the page's
 * script fills the same strings when the stream moves a number (embed-data in embed.page.ts).
 */
export interface EmbedStrings {
  /** `{raised}` and `{goal}`: amounts. */
  raisedOf: string;
  /** `{pct}`: a percentage. */
  funded: string;
  /** `{n}`: a count, by plural category (Intl.PluralRules); `other` when a category is missing. */
  donors: Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };
  progress: string;
  latest: string;
  anonymous: string;
  noGifts: string;
  donate: string;
  newWindow: string;
  ended: string;
  paused: string;
  notFoundTitle: string;
  notFoundText: string;
}

/** The campaign languages (fundraisers' LANGS), each with its words below. */
export const EMBED_LANGS = ['en', 'ru', 'uk', 'es'] as const satisfies readonly Lang[];

const LOCALE: Record<Lang, string> = { en: 'en-US', ru: 'ru-RU', uk: 'uk-UA', es: 'es-ES' };

const STRINGS: Record<Lang, EmbedStrings> = {
  en: {
    raisedOf: '{raised} raised of {goal}',
    funded: '{pct} funded',
    donors: { one: '{n} donor', other: '{n} donors' },
    progress: 'Progress toward the goal',
    latest: 'Latest gifts',
    anonymous: 'Anonymous',
    noGifts: 'No gifts yet. Be the first!',
    donate: 'Donate',
    newWindow: '(opens in a new window)',
    ended: 'This campaign has ended.',
    paused: 'Donations are paused for now.',
    notFoundTitle: 'Campaign not available',
    notFoundText: 'There is nothing to show here.',
  },
  ru: {
    raisedOf: 'Собрано {raised} из {goal}',
    funded: '{pct} от цели',
    donors: { one: '{n} донор', few: '{n} донора', many: '{n} доноров', other: '{n} донора' },
    progress: 'Ход сбора',
    latest: 'Последние пожертвования',
    anonymous: 'Аноним',
    noGifts: 'Пожертвований пока нет. Станьте первым!',
    donate: 'Пожертвовать',
    newWindow: '(откроется в новом окне)',
    ended: 'Сбор завершён.',
    paused: 'Приём пожертвований приостановлен.',
    notFoundTitle: 'Кампания недоступна',
    notFoundText: 'Здесь нечего показать.',
  },
  uk: {
    raisedOf: 'Зібрано {raised} з {goal}',
    funded: '{pct} від мети',
    donors: { one: '{n} донор', few: '{n} донори', many: '{n} донорів', other: '{n} донора' },
    progress: 'Поступ збору',
    latest: 'Останні внески',
    anonymous: 'Анонім',
    noGifts: 'Внесків ще немає. Станьте першим!',
    donate: 'Підтримати',
    newWindow: '(відкриється в новому вікні)',
    ended: 'Збір завершено.',
    paused: 'Приймання внесків призупинено.',
    notFoundTitle: 'Кампанія недоступна',
    notFoundText: 'Тут нічого немає.',
  },
  es: {
    raisedOf: '{raised} recaudados de {goal}',
    funded: '{pct} de la meta',
    donors: { one: '{n} donante', other: '{n} donantes' },
    progress: 'Progreso hacia la meta',
    latest: 'Últimas donaciones',
    anonymous: 'Anónimo',
    noGifts: 'Aún no hay donaciones. ¡Sé el primero!',
    donate: 'Donar',
    newWindow: '(se abre en una ventana nueva)',
    ended: 'Esta campaña ha finalizado.',
    paused: 'Las donaciones están en pausa.',
    notFoundTitle: 'Campaña no disponible',
    notFoundText: 'No hay nada que mostrar aquí.',
  },
};

export const fill = (template: string, values: Record<string, string>): string => template.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);

/**
 * Strings and number formatting of one locale. The page's script formats the numbers the
 * stream sends with the same Intl options (assets/frame.js `money`), so a number reads the same
 * before and after it moves: cents only when there are any.
 */
export function embedLocale(lang: Lang) {
  const locale = LOCALE[lang];
  const strings = STRINGS[lang];
  const plural = new Intl.PluralRules(locale);
  const count = new Intl.NumberFormat(locale);
  return {
    lang,
    locale,
    strings,
    money(cents: number, currency: string): string {
      const digits = cents % 100 === 0 ? 0 : 2;
      try {
        return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(cents / 100);
      } catch {
        return `${new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(cents / 100)} ${currency}`;
      }
    },
    percent: (pct: number) => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }).format(pct / 100),
    donors: (n: number) => fill(strings.donors[plural.select(n)] ?? strings.donors.other, { n: count.format(n) }),
  };
}
export type EmbedLocale = ReturnType<typeof embedLocale>;
