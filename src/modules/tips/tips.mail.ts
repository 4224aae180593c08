import type { ComposedMail, Locale } from '../../integrations/mail';
import type { TipRow } from './tips.repo';

interface Copy {
  subject: string;
  thanks: string;
  amount: (amount: string, monthly: boolean) => string;
  date: (date: string) => string;
  view: string;
  notTax: string;
}

const COPY: Record<Locale, Copy> = {
  en: {
    subject: 'Your tip receipt',
    thanks: 'Thank you for supporting the platform. Your tip keeps it free for campaigns and donors.',
    amount: (a, m) => (m ? `Amount: ${a} every month` : `Amount: ${a}`),
    date: (d) => `Paid on ${d}`,
    view: 'View receipt',
    notTax: 'A tip to the platform is not a charitable gift: this is not a tax receipt.',
  },
  ru: {
    subject: 'Квитанция о чаевых',
    thanks: 'Спасибо за поддержку платформы. Ваши чаевые помогают ей оставаться бесплатной для кампаний и жертвователей.',
    amount: (a, m) => (m ? `Сумма: ${a} ежемесячно` : `Сумма: ${a}`),
    date: (d) => `Оплачено ${d}`,
    view: 'Открыть квитанцию',
    notTax: 'Чаевые платформе не являются благотворительным пожертвованием: это не налоговая квитанция.',
  },
  uk: {
    subject: 'Квитанція про чайові',
    thanks: 'Дякуємо за підтримку платформи. Ваші чайові допомагають їй залишатися безкоштовною для кампаній і донорів.',
    amount: (a, m) => (m ? `Сума: ${a} щомісяця` : `Сума: ${a}`),
    date: (d) => `Оплачено ${d}`,
    view: 'Переглянути квитанцію',
    notTax: 'Чайові платформі не є благодійним внеском: це не податкова квитанція.',
  },
  es: {
    subject: 'Tu recibo de propina',
    thanks: 'Gracias por apoyar la plataforma. Tu propina la mantiene gratuita para campañas y donantes.',
    amount: (a, m) => (m ? `Importe: ${a} cada mes` : `Importe: ${a}`),
    date: (d) => `Pagado el ${d}`,
    view: 'Ver recibo',
    notTax: 'Una propina a la plataforma no es un donativo benéfico: esto no es un recibo fiscal.',
  },
};

export function tipReceiptMail(tip: TipRow, to: string, locale: Locale, siteUrl: string): ComposedMail {
  const c = COPY[locale];
  const amount = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' }).format(tip.amount_cents / 100);
  const paid = tip.paid_at ? new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(tip.paid_at)) : null;
  return {
    to,
    template: 'tip_receipt',
    locale,
    subject: c.subject,
    paragraphs: [c.thanks, c.amount(amount, tip.cadence === 'recurring'), ...(paid ? [c.date(paid)] : [])],
    action: { label: c.view, url: `${siteUrl}/tip/${tip.id}` },
    footer: [c.notTax],
  };
}
