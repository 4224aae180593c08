import type { ComposedMail, Locale } from '../../../integrations/mail';
import { toLocale } from '../../../integrations/mail';
import { formatMoney } from '../donations.mail';

/** Mails about a monthly gift (its receipts are donations.mail.ts's, with a manage link added). */

interface Copy {
  manage: string;
  monthlyNote: string;
  failedSubject: (c: string) => string;
  failed: (amount: string, c: string) => string;
  updateCard: string;
  canceledSubject: (c: string) => string;
  canceledByCampaign: (c: string) => string;
  canceledByProcessor: (c: string) => string;
  noMore: string;
}

const COPY: Record<Locale, Copy> = {
  en: {
    manage: 'Manage your monthly gift',
    monthlyNote: 'This is a monthly gift: you can change, pause or stop it at any time.',
    failedSubject: (c) => `Your monthly gift to ${c} could not be charged`,
    failed: (a, c) => `We could not charge your card for your monthly gift of ${a} to "${c}". We will try again in a few days.`,
    updateCard: 'Update your card',
    canceledSubject: (c) => `Your monthly gift to ${c} has ended`,
    canceledByCampaign: (c) => `The campaign "${c}" is no longer taking gifts, so your monthly gift to it has been stopped.`,
    canceledByProcessor: (c) => `After several attempts we could not charge your card, so your monthly gift to "${c}" has been stopped.`,
    noMore: 'You will not be charged again for it.',
  },
  ru: {
    manage: 'Управлять ежемесячным пожертвованием',
    monthlyNote: 'Это ежемесячное пожертвование: его можно изменить, приостановить или отменить в любой момент.',
    failedSubject: (c) => `Не удалось списать ежемесячное пожертвование: ${c}`,
    failed: (a, c) => `Не удалось списать ${a} для ежемесячного пожертвования в сбор «${c}». Мы попробуем снова через несколько дней.`,
    updateCard: 'Обновить карту',
    canceledSubject: (c) => `Ежемесячное пожертвование остановлено: ${c}`,
    canceledByCampaign: (c) => `Сбор «${c}» больше не принимает пожертвования, поэтому ваше ежемесячное пожертвование остановлено.`,
    canceledByProcessor: (c) => `После нескольких попыток списать оплату не удалось, поэтому ежемесячное пожертвование в сбор «${c}» остановлено.`,
    noMore: 'Больше списаний не будет.',
  },
  uk: {
    manage: 'Керувати щомісячним внеском',
    monthlyNote: 'Це щомісячний внесок: його можна змінити, призупинити або скасувати будь-коли.',
    failedSubject: (c) => `Не вдалося списати щомісячний внесок: ${c}`,
    failed: (a, c) => `Не вдалося списати ${a} для щомісячного внеску на збір «${c}». Ми спробуємо знову за кілька днів.`,
    updateCard: 'Оновити картку',
    canceledSubject: (c) => `Щомісячний внесок зупинено: ${c}`,
    canceledByCampaign: (c) => `Збір «${c}» більше не приймає внески, тож ваш щомісячний внесок зупинено.`,
    canceledByProcessor: (c) => `Після кількох спроб оплату не вдалося списати, тож щомісячний внесок на збір «${c}» зупинено.`,
    noMore: 'Більше списань не буде.',
  },
  es: {
    manage: 'Gestionar tu donación mensual',
    monthlyNote: 'Es una donación mensual: puedes cambiarla, pausarla o detenerla cuando quieras.',
    failedSubject: (c) => `No pudimos cobrar tu donación mensual a ${c}`,
    failed: (a, c) => `No pudimos cobrar tu donación mensual de ${a} a «${c}». Lo intentaremos de nuevo en unos días.`,
    updateCard: 'Actualizar tu tarjeta',
    canceledSubject: (c) => `Tu donación mensual a ${c} ha terminado`,
    canceledByCampaign: (c) => `La campaña «${c}» ya no acepta donaciones, así que tu donación mensual se ha detenido.`,
    canceledByProcessor: (c) => `Tras varios intentos no pudimos cobrar tu tarjeta, así que tu donación mensual a «${c}» se ha detenido.`,
    noMore: 'No se te volverá a cobrar por ella.',
  },
};

/** What a monthly gift's receipt adds: a note and the signed manage link. */
export function monthlyReceiptExtras(locale: string, manageUrl: string) {
  const c = COPY[toLocale(locale)];
  return { paragraph: c.monthlyNote, link: { label: c.manage, url: manageUrl } };
}

export function renewalFailedMail(g: { to: string; locale: string; campaign: string; amount_cents: number; currency: string; updateUrl: string }): ComposedMail {
  const locale = toLocale(g.locale);
  const c = COPY[locale];
  return {
    to: g.to,
    template: 'recurring_gift_payment_failed',
    locale,
    subject: c.failedSubject(g.campaign),
    paragraphs: [c.failed(formatMoney(g.amount_cents, g.currency, locale), g.campaign)],
    action: { label: c.updateCard, url: g.updateUrl },
  };
}

export function giftCanceledMail(g: { to: string; locale: string; campaign: string; by: 'campaign' | 'processor' }): ComposedMail {
  const locale = toLocale(g.locale);
  const c = COPY[locale];
  return {
    to: g.to,
    template: 'recurring_gift_canceled',
    locale,
    subject: c.canceledSubject(g.campaign),
    paragraphs: [g.by === 'campaign' ? c.canceledByCampaign(g.campaign) : c.canceledByProcessor(g.campaign), c.noMore],
  };
}
