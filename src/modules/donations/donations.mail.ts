import type { ComposedMail, Locale } from '../../integrations/mail';
import { toLocale } from '../../integrations/mail';

interface Copy {
  subject: (campaign: string) => string;
  thanks: (amount: string, campaign: string) => string;
  tip: (amount: string) => string;
  link: string;
  notTax: string;
}

const COPY: Record<Locale, Copy> = {
  en: {
    subject: (c) => `Your donation to ${c}`,
    thanks: (a, c) => `Thank you for your donation of ${a} to "${c}".`,
    tip: (a) => `You also gave a tip of ${a} to the platform. Thank you!`,
    link: 'View your receipt',
    notTax: 'This confirmation is not a tax receipt.',
  },
  ru: {
    subject: (c) => `Ваше пожертвование: ${c}`,
    thanks: (a, c) => `Спасибо за пожертвование ${a} в сбор «${c}».`,
    tip: (a) => `Вы также оставили платформе чаевые ${a}. Спасибо!`,
    link: 'Открыть квитанцию',
    notTax: 'Это подтверждение не является налоговой квитанцией.',
  },
  uk: {
    subject: (c) => `Ваша пожертва: ${c}`,
    thanks: (a, c) => `Дякуємо за пожертву ${a} на збір «${c}».`,
    tip: (a) => `Ви також залишили платформі чайові ${a}. Дякуємо!`,
    link: 'Переглянути квитанцію',
    notTax: 'Це підтвердження не є податковою квитанцією.',
  },
  es: {
    subject: (c) => `Tu donación a ${c}`,
    thanks: (a, c) => `Gracias por tu donación de ${a} a «${c}».`,
    tip: (a) => `También diste una propina de ${a} a la plataforma. ¡Gracias!`,
    link: 'Ver tu recibo',
    notTax: 'Esta confirmación no es un recibo fiscal.',
  },
};

/** Cents as the locale writes money (e.g. $25.00, 25,00 US$). */
export function formatMoney(cents: number, currency: string, locale: Locale): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

/** The donor's receipt mail: amount, campaign, the receipt link, and that it is not a tax receipt. */
export function receiptMail(
  siteUrl: string,
  g: { to: string; locale: string; campaign: string; amount_cents: number; tip_cents: number; currency: string; receipt_id: string },
): ComposedMail {
  const locale = toLocale(g.locale);
  const c = COPY[locale];
  const paragraphs = [c.thanks(formatMoney(g.amount_cents, g.currency, locale), g.campaign)];
  if (g.tip_cents > 0) paragraphs.push(c.tip(formatMoney(g.tip_cents, g.currency, locale)));
  return {
    to: g.to,
    template: 'donation_receipt',
    locale,
    subject: c.subject(g.campaign),
    paragraphs,
    action: { label: c.link, url: `${siteUrl}/receipts/${encodeURIComponent(g.receipt_id)}` },
    footer: [c.notTax],
  };
}
