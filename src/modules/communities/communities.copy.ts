import type { Locale } from '../../integrations/mail';
import { escapeHtml } from '../../integrations/mail/templates';

type PerLocale<T> = Record<Locale, T>;
const link = (url: string, text: string) => `<a href="${escapeHtml(url)}">${escapeHtml(text)}</a>`;

const SOMEONE: PerLocale<string> = { en: 'Someone', ru: 'Пользователь', uk: 'Користувач', es: 'Alguien' };

/** To each leader: a request with a saved card waits for a decision. Interpolated values are escaped. */
const REQUESTED: PerLocale<{ title: string; label: string; body: (who: string, community: string) => string }> = {
  en: { title: 'New request to join', label: 'Review requests', body: (w, c) => `${w} asks to join ${c}.` },
  ru: { title: 'Новая заявка на вступление', label: 'Рассмотреть заявки', body: (w, c) => `${w} хочет вступить в сообщество ${c}.` },
  uk: { title: 'Нова заявка на вступ', label: 'Розглянути заявки', body: (w, c) => `${w} хоче приєднатися до спільноти ${c}.` },
  es: { title: 'Nueva solicitud para unirse', label: 'Revisar solicitudes', body: (w, c) => `${w} pide unirse a ${c}.` },
};

export function joinRequestedCopy(locale: Locale, v: { requester: string | null; community_name: string; url: string }) {
  const w = REQUESTED[locale];
  return { title: w.title, action_label: w.label, message: w.body(escapeHtml(v.requester ?? SOMEONE[locale]), link(v.url, v.community_name)) };
}

/** To the requester: a leader approved (the saved card is charged now) or declined (nothing is charged). */
const DECIDED: PerLocale<Record<'approved' | 'declined', { title: string; body: (community: string) => string }> & { label: string }> = {
  en: {
    approved: { title: 'Request approved', body: (c) => `Your request to join ${c} was approved. Your saved card is charged now and you become a member once the payment goes through.` },
    declined: { title: 'Request declined', body: (c) => `Your request to join ${c} was declined. Nothing was charged.` },
    label: 'View community',
  },
  ru: {
    approved: { title: 'Заявка одобрена', body: (c) => `Ваша заявка на вступление в ${c} одобрена. С сохранённой карты будет списана оплата, и после её прохождения вы станете участником.` },
    declined: { title: 'Заявка отклонена', body: (c) => `Ваша заявка на вступление в ${c} отклонена. Оплата не списана.` },
    label: 'Открыть сообщество',
  },
  uk: {
    approved: { title: 'Заявку схвалено', body: (c) => `Вашу заявку на вступ до ${c} схвалено. З збереженої картки буде списано оплату, і після її проходження ви станете учасником.` },
    declined: { title: 'Заявку відхилено', body: (c) => `Вашу заявку на вступ до ${c} відхилено. Оплату не списано.` },
    label: 'Відкрити спільноту',
  },
  es: {
    approved: { title: 'Solicitud aprobada', body: (c) => `Tu solicitud para unirte a ${c} fue aprobada. Se cobra ahora tu tarjeta guardada y serás miembro cuando se complete el pago.` },
    declined: { title: 'Solicitud rechazada', body: (c) => `Tu solicitud para unirte a ${c} fue rechazada. No se ha cobrado nada.` },
    label: 'Ver comunidad',
  },
};

export function joinDecidedCopy(locale: Locale, decision: 'approved' | 'declined', v: { community_name: string; url: string }) {
  const w = DECIDED[locale];
  return { title: w[decision].title, action_label: w.label, message: w[decision].body(link(v.url, v.community_name)) };
}
