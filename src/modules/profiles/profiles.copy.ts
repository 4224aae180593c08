import type { Locale } from '../../integrations/mail';
import type { BadgeCode } from './profiles.schemas';

/** Badge labels in the four locales. */
export const BADGE_LABELS: Record<Locale, Record<BadgeCode, string>> = {
  en: {
    verified_email: 'Verified email',
    staff: 'Platform team',
    ambassador: 'Ambassador',
    first_campaign: 'First campaign live',
    first_gift: 'First gift',
    goal_reached: 'Goal reached',
    endorser: 'Endorser',
  },
  ru: {
    verified_email: 'Подтверждённый email',
    staff: 'Команда платформы',
    ambassador: 'Амбассадор',
    first_campaign: 'Первая кампания',
    first_gift: 'Первое пожертвование',
    goal_reached: 'Цель достигнута',
    endorser: 'Рекомендует кампании',
  },
  uk: {
    verified_email: 'Підтверджений email',
    staff: 'Команда платформи',
    ambassador: 'Амбасадор',
    first_campaign: 'Перша кампанія',
    first_gift: 'Перший внесок',
    goal_reached: 'Мету досягнуто',
    endorser: 'Рекомендує кампанії',
  },
  es: {
    verified_email: 'Email verificado',
    staff: 'Equipo de la plataforma',
    ambassador: 'Embajador',
    first_campaign: 'Primera campaña',
    first_gift: 'Primera donación',
    goal_reached: 'Meta alcanzada',
    endorser: 'Respalda campañas',
  },
};

/**
 * Words a profile slug may not take: the site's own paths and names that would pass for the
 * platform speaking. Compared after lower-casing.
 */
export const RESERVED_SLUGS = new Set([
  'about', 'account', 'accounts', 'achievements', 'admin', 'administrator', 'ambassador', 'ambassadors', 'api', 'app',
  'assets', 'auth', 'billing', 'blog', 'campaign', 'campaigns', 'cards', 'categories', 'communities', 'community',
  'contact', 'creators', 'dashboard', 'docs', 'donate', 'donation', 'donations', 'donor', 'donors', 'edit', 'explore',
  'faq', 'features', 'fundraiser', 'fundraisers', 'help', 'home', 'idp', 'leaderboard', 'legal', 'login', 'logout',
  'media', 'moderator', 'new', 'news', 'notifications', 'null', 'official', 'org', 'org-admin', 'organization',
  'organizations', 'orgs', 'payments', 'payouts', 'platform', 'press', 'privacy', 'profile', 'profiles', 'register',
  'root', 'search', 'security', 'settings', 'signin', 'signout', 'signup', 'slug-availability', 'staff', 'static',
  'support', 'system', 'team', 'terms', 'tip', 'tips', 'trust', 'undefined', 'unsubscribe', 'user', 'users', 'www',
]);
