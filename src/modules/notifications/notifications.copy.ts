import { escapeHtml } from '../../integrations/mail/templates';
import type { Locale } from '../../integrations/mail';

/** Money as the recipient reads it ($25.00, 25,00 $, ...). */
export function formatMoney(cents: number, currency: string, locale: Locale): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

/** A link inside a notification message; both the URL and the text are escaped. */
export const link = (url: string, text: string) => `<a href="${escapeHtml(url)}">${escapeHtml(text)}</a>`;
const strong = (text: string) => `<strong>${escapeHtml(text)}</strong>`;

interface Words {
  title: string;
  label: string;
}

type PerLocale<T> = Record<Locale, T>;

const DONATION: PerLocale<Words & { from: (amount: string, donor: string, campaign: string) => string; anonymous: (amount: string, campaign: string) => string; someone: string }> = {
  en: {
    title: 'New donation received',
    label: 'View campaign',
    from: (a, d, c) => `${a} from ${d} to ${c}.`,
    anonymous: (a, c) => `${a} from an anonymous donor to ${c}.`,
    someone: 'a donor',
  },
  ru: {
    title: 'Получено новое пожертвование',
    label: 'Открыть кампанию',
    from: (a, d, c) => `${a} от ${d} для ${c}.`,
    anonymous: (a, c) => `${a} от анонимного жертвователя для ${c}.`,
    someone: 'жертвователя',
  },
  uk: {
    title: 'Отримано новий внесок',
    label: 'Відкрити кампанію',
    from: (a, d, c) => `${a} від ${d} для ${c}.`,
    anonymous: (a, c) => `${a} від анонімного донора для ${c}.`,
    someone: 'донора',
  },
  es: {
    title: 'Nueva donación recibida',
    label: 'Ver campaña',
    from: (a, d, c) => `${a} de ${d} para ${c}.`,
    anonymous: (a, c) => `${a} de un donante anónimo para ${c}.`,
    someone: 'un donante',
  },
};

const PAYOUT: PerLocale<Words & { body: (amount: string) => string }> = {
  en: { title: 'Payout paid', label: 'View payouts', body: (a) => `A payout of ${a} has been paid to your bank account.` },
  ru: { title: 'Выплата произведена', label: 'Открыть выплаты', body: (a) => `Выплата ${a} зачислена на ваш банковский счёт.` },
  uk: { title: 'Виплату здійснено', label: 'Переглянути виплати', body: (a) => `Виплату ${a} зараховано на ваш банківський рахунок.` },
  es: { title: 'Pago realizado', label: 'Ver pagos', body: (a) => `Se ha abonado un pago de ${a} en tu cuenta bancaria.` },
};

const GOAL: PerLocale<Words & { body: (campaign: string) => string }> = {
  en: { title: 'Goal reached!', label: 'View campaign', body: (c) => `Your campaign ${c} has reached its goal. Congratulations!` },
  ru: { title: 'Цель достигнута!', label: 'Открыть кампанию', body: (c) => `Ваша кампания ${c} достигла цели. Поздравляем!` },
  uk: { title: 'Мету досягнуто!', label: 'Відкрити кампанію', body: (c) => `Ваша кампанія ${c} досягла мети. Вітаємо!` },
  es: { title: '¡Meta alcanzada!', label: 'Ver campaña', body: (c) => `Tu campaña ${c} ha alcanzado su meta. ¡Enhorabuena!` },
};

export interface Rendered {
  title: string;
  /** A little HTML; every interpolated value is escaped. */
  message: string;
  action_label: string;
}

export function donationReceivedCopy(
  locale: Locale,
  v: { amount_cents: number; currency: string; donor_name: string | null; anonymous: boolean; campaign_title: string; campaign_url: string },
): Rendered {
  const w = DONATION[locale];
  const amount = strong(formatMoney(v.amount_cents, v.currency, locale));
  const campaign = link(v.campaign_url, v.campaign_title);
  const message = v.anonymous ? w.anonymous(amount, campaign) : w.from(amount, escapeHtml(v.donor_name?.trim() || w.someone), campaign);
  return { title: w.title, message, action_label: w.label };
}

export function payoutPaidCopy(locale: Locale, v: { amount_cents: number; currency: string }): Rendered {
  const w = PAYOUT[locale];
  return { title: w.title, message: w.body(strong(formatMoney(v.amount_cents, v.currency, locale))), action_label: w.label };
}

export function goalReachedCopy(locale: Locale, v: { campaign_title: string; campaign_url: string }): Rendered {
  const w = GOAL[locale];
  return { title: w.title, message: w.body(link(v.campaign_url, v.campaign_title)), action_label: w.label };
}
