/** The four locales of the share images; the labels the images carry in each. */
export const SHARE_LANGS = ['en', 'ru', 'uk', 'es'] as const;
export type ShareLang = (typeof SHARE_LANGS)[number];

const LOCALE: Record<ShareLang, string> = { en: 'en-US', ru: 'ru-RU', uk: 'uk-UA', es: 'es-ES' };

interface Labels {
  raisedOf: (goal: string) => string;
  donors: Record<Intl.LDMLPluralRule, string>;
  ofGoal: (pct: string) => string;
  goalReached: string;
  ended: string;
  cta: string;
  storyTagline: string;
  profileKicker: string;
  memberSince: (year: number) => string;
  profileCta: string;
}

const LABELS: Record<ShareLang, Labels> = {
  en: {
    raisedOf: (g) => `raised of ${g} goal`,
    donors: { zero: 'donors', one: 'donor', two: 'donors', few: 'donors', many: 'donors', other: 'donors' },
    ofGoal: (p) => `${p} of goal`,
    goalReached: 'Goal reached!',
    ended: 'Campaign ended',
    cta: 'Donate now',
    storyTagline: 'Every gift brings us closer',
    profileKicker: 'Creator profile',
    memberSince: (y) => `Member since ${y}`,
    profileCta: 'See my campaigns',
  },
  ru: {
    raisedOf: (g) => `собрано из ${g}`,
    donors: { zero: 'доноров', one: 'донор', two: 'донора', few: 'донора', many: 'доноров', other: 'донора' },
    ofGoal: (p) => `${p} от цели`,
    goalReached: 'Цель достигнута!',
    ended: 'Сбор завершён',
    cta: 'Поддержать',
    storyTagline: 'Каждый вклад приближает нас к цели',
    profileKicker: 'Профиль автора',
    memberSince: (y) => `С нами с ${y} года`,
    profileCta: 'Мои кампании',
  },
  uk: {
    raisedOf: (g) => `зібрано з ${g}`,
    donors: { zero: 'донорів', one: 'донор', two: 'донори', few: 'донори', many: 'донорів', other: 'донора' },
    ofGoal: (p) => `${p} від мети`,
    goalReached: 'Мету досягнуто!',
    ended: 'Збір завершено',
    cta: 'Підтримати',
    storyTagline: 'Кожен внесок наближає нас до мети',
    profileKicker: 'Профіль автора',
    memberSince: (y) => `З нами з ${y} року`,
    profileCta: 'Мої кампанії',
  },
  es: {
    raisedOf: (g) => `recaudados de ${g}`,
    donors: { zero: 'donantes', one: 'donante', two: 'donantes', few: 'donantes', many: 'donantes', other: 'donantes' },
    ofGoal: (p) => `${p} de la meta`,
    goalReached: '¡Meta alcanzada!',
    ended: 'Campaña finalizada',
    cta: 'Donar ahora',
    storyTagline: 'Cada donación nos acerca a la meta',
    profileKicker: 'Perfil del creador',
    memberSince: (y) => `Miembro desde ${y}`,
    profileCta: 'Ver mis campañas',
  },
};

/** Formatting and labels for one locale. */
export function labelsFor(lang: ShareLang) {
  const locale = LOCALE[lang];
  const plural = new Intl.PluralRules(locale);
  return {
    ...LABELS[lang],
    /** Whole units of the currency: cents are noise on a poster. */
    money(cents: number, currency: string): string {
      try {
        return new Intl.NumberFormat(locale, { style: 'currency', currency, maximumFractionDigits: 0, minimumFractionDigits: 0 }).format(Math.floor(cents / 100));
      } catch {
        return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(Math.floor(cents / 100))} ${currency}`;
      }
    },
    count: (n: number) => new Intl.NumberFormat(locale).format(n),
    donorsLabel: (n: number) => LABELS[lang].donors[plural.select(n)],
    percent: (p: number) => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }).format(p / 100),
  };
}
export type ShareLabels = ReturnType<typeof labelsFor>;
