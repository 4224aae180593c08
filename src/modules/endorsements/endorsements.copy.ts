import type { Locale } from '../../integrations/mail';
import { escapeHtml } from '../../integrations/mail/templates';

type PerLocale<T> = Record<Locale, T>;

/** The in-app notification to the holder. Every interpolated value is escaped (the message may hold a link). */
const RECEIVED: PerLocale<{ title: string; label: string; body: (who: string, campaign: string) => string }> = {
  en: { title: 'New endorsement', label: 'View campaign', body: (w, c) => `${w} endorsed ${c}.` },
  ru: { title: 'Новая рекомендация', label: 'Открыть кампанию', body: (w, c) => `${w} рекомендует кампанию ${c}.` },
  uk: { title: 'Нова рекомендація', label: 'Відкрити кампанію', body: (w, c) => `${w} рекомендує кампанію ${c}.` },
  es: { title: 'Nuevo respaldo', label: 'Ver campaña', body: (w, c) => `${w} respaldó ${c}.` },
};
const SOMEONE: PerLocale<string> = { en: 'Someone', ru: 'Пользователь', uk: 'Користувач', es: 'Alguien' };

export function endorsementReceivedCopy(locale: Locale, v: { endorser: string | null; campaign_title: string; campaign_url: string }) {
  const w = RECEIVED[locale];
  const link = `<a href="${escapeHtml(v.campaign_url)}">${escapeHtml(v.campaign_title)}</a>`;
  return { title: w.title, action_label: w.label, message: w.body(escapeHtml(v.endorser ?? SOMEONE[locale]), link) };
}

/** The mail asking someone to endorse a campaign. */
const REQUEST: PerLocale<{ subject: (c: string) => string; body: (who: string, c: string) => string; label: string; footer: string }> = {
  en: {
    subject: (c) => `Would you endorse "${c}"?`,
    body: (w, c) => `${w} asks you to endorse the campaign "${c}". An endorsement shows your support on the campaign page.`,
    label: 'View and endorse',
    footer: 'You received this because a campaign organiser entered your address. No account was created for you.',
  },
  ru: {
    subject: (c) => `Порекомендуете кампанию «${c}»?`,
    body: (w, c) => `${w} просит вас порекомендовать кампанию «${c}». Рекомендация показывает вашу поддержку на странице кампании.`,
    label: 'Открыть и порекомендовать',
    footer: 'Вы получили это письмо, потому что организатор кампании указал ваш адрес. Учётная запись для вас не создана.',
  },
  uk: {
    subject: (c) => `Порекомендуєте кампанію «${c}»?`,
    body: (w, c) => `${w} просить вас порекомендувати кампанію «${c}». Рекомендація показує вашу підтримку на сторінці кампанії.`,
    label: 'Переглянути й порекомендувати',
    footer: 'Ви отримали цей лист, бо організатор кампанії вказав вашу адресу. Обліковий запис для вас не створено.',
  },
  es: {
    subject: (c) => `¿Respaldarías «${c}»?`,
    body: (w, c) => `${w} te pide que respaldes la campaña «${c}». Un respaldo muestra tu apoyo en la página de la campaña.`,
    label: 'Ver y respaldar',
    footer: 'Recibes esto porque el organizador de una campaña introdujo tu dirección. No se ha creado ninguna cuenta para ti.',
  },
};

export function endorsementRequestMail(locale: Locale, v: { requester: string | null; campaign_title: string; campaign_url: string }) {
  const w = REQUEST[locale];
  return {
    subject: w.subject(v.campaign_title),
    paragraphs: [w.body(v.requester ?? SOMEONE[locale], v.campaign_title)],
    action: { label: w.label, url: v.campaign_url },
    footer: [w.footer],
  };
}
