/** The achievement kinds and what they are called in each of the four locales. */
export const ACHIEVEMENT_KINDS = ['first_gift', 'first_campaign_live', 'goal_reached', 'donors_10', 'donors_100', 'first_update'] as const;
export type AchievementKind = (typeof ACHIEVEMENT_KINDS)[number];

export const ACHIEVEMENT_LANGS = ['en', 'ru', 'uk', 'es'] as const;
export type AchievementLang = (typeof ACHIEVEMENT_LANGS)[number];

export const isAchievementLang = (v: unknown): v is AchievementLang => ACHIEVEMENT_LANGS.includes(v as AchievementLang);

const LABELS: Record<AchievementLang, Record<AchievementKind, string>> = {
  en: {
    first_gift: 'First gift',
    first_campaign_live: 'First campaign live',
    goal_reached: 'Goal reached',
    donors_10: '10 donors',
    donors_100: '100 donors',
    first_update: 'First update',
  },
  ru: {
    first_gift: 'Первое пожертвование',
    first_campaign_live: 'Первая кампания запущена',
    goal_reached: 'Цель достигнута',
    donors_10: '10 доноров',
    donors_100: '100 доноров',
    first_update: 'Первая новость',
  },
  uk: {
    first_gift: 'Перший внесок',
    first_campaign_live: 'Перша кампанія запущена',
    goal_reached: 'Мету досягнуто',
    donors_10: '10 донорів',
    donors_100: '100 донорів',
    first_update: 'Перша новина',
  },
  es: {
    first_gift: 'Primera donación',
    first_campaign_live: 'Primera campaña publicada',
    goal_reached: 'Meta alcanzada',
    donors_10: '10 donantes',
    donors_100: '100 donantes',
    first_update: 'Primera actualización',
  },
};

/** The words around the label on a card image. */
const CARD: Record<AchievementLang, { kicker: string; earnedBy: (name: string) => string; scan: string; locale: string }> = {
  en: { kicker: 'Achievement unlocked', earnedBy: (n) => `earned by ${n}`, scan: 'Scan to see the card', locale: 'en-US' },
  ru: { kicker: 'Новое достижение', earnedBy: (n) => `получил(а) ${n}`, scan: 'Отсканируйте, чтобы открыть', locale: 'ru-RU' },
  uk: { kicker: 'Нове досягнення', earnedBy: (n) => `отримав(ла) ${n}`, scan: 'Скануйте, щоб відкрити', locale: 'uk-UA' },
  es: { kicker: 'Logro desbloqueado', earnedBy: (n) => `conseguido por ${n}`, scan: 'Escanea para ver la tarjeta', locale: 'es-ES' },
};

export const achievementLabel = (kind: AchievementKind, lang: AchievementLang): string => LABELS[lang][kind];

export function cardWords(lang: AchievementLang) {
  const c = CARD[lang];
  return { ...c, date: (d: Date) => new Intl.DateTimeFormat(c.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(d) };
}
