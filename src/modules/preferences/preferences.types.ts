import type { Locale } from '../../integrations/mail';
import type { NotificationType } from '../notifications';

// Which types have a toggle, and their labels, come from the modules that send them (each
// module file's `notificationTypes`, collected by src/modules/index.ts into a NotificationCatalog).

/** What an unsubscribe token names: one type's email, or all of them. */
export type UnsubscribeCategory = NotificationType | 'all';

/** The footer and link wording of every notification mail. */
export const MAIL_WORDS: Record<
  Locale,
  { because: (label: string) => string; generic: string; unsubscribe: string; unsubscribeAll: string; manage: string }
> = {
  en: {
    because: (l) => `You get this email because emails about ${l} are on in your notification settings.`,
    generic: 'You get this email because email notifications are on in your settings.',
    unsubscribe: 'Unsubscribe from these emails',
    unsubscribeAll: 'Unsubscribe from all notification emails',
    manage: 'Manage email preferences',
  },
  ru: {
    because: (l) => `Вы получили это письмо, потому что в настройках включены письма о ${l}.`,
    generic: 'Вы получили это письмо, потому что в настройках включены уведомления по почте.',
    unsubscribe: 'Отписаться от этих писем',
    unsubscribeAll: 'Отписаться от всех писем-уведомлений',
    manage: 'Настроить письма',
  },
  uk: {
    because: (l) => `Ви отримали цей лист, бо в налаштуваннях увімкнено листи про ${l}.`,
    generic: 'Ви отримали цей лист, бо в налаштуваннях увімкнено сповіщення поштою.',
    unsubscribe: 'Відписатися від цих листів',
    unsubscribeAll: 'Відписатися від усіх листів-сповіщень',
    manage: 'Налаштувати листи',
  },
  es: {
    because: (l) => `Recibes este correo porque los correos sobre ${l} están activados en tu configuración.`,
    generic: 'Recibes este correo porque las notificaciones por correo están activadas en tu configuración.',
    unsubscribe: 'Darse de baja de estos correos',
    unsubscribeAll: 'Darse de baja de todos los correos de notificación',
    manage: 'Gestionar preferencias de correo',
  },
};

/** The mail `POST /unsubscribe/request` sends. */
export const REQUEST_MAIL: Record<Locale, { subject: string; intro: string; action: string; outro: string }> = {
  en: {
    subject: 'Unsubscribe from notification emails',
    intro: 'Someone asked to stop notification emails to this address. Open the link below to unsubscribe from all of them.',
    action: 'Unsubscribe',
    outro: 'If you did not ask for this, you can ignore this message; nothing changes.',
  },
  ru: {
    subject: 'Отписка от писем-уведомлений',
    intro: 'Поступил запрос прекратить отправку уведомлений на этот адрес. Откройте ссылку ниже, чтобы отписаться от всех писем.',
    action: 'Отписаться',
    outro: 'Если вы этого не запрашивали, просто проигнорируйте письмо — ничего не изменится.',
  },
  uk: {
    subject: 'Відписка від листів-сповіщень',
    intro: 'Надійшов запит припинити надсилання сповіщень на цю адресу. Відкрийте посилання нижче, щоб відписатися від усіх листів.',
    action: 'Відписатися',
    outro: 'Якщо ви цього не запитували, просто проігноруйте лист — нічого не зміниться.',
  },
  es: {
    subject: 'Darse de baja de los correos de notificación',
    intro: 'Alguien pidió dejar de enviar notificaciones a esta dirección. Abre el enlace de abajo para darte de baja de todas.',
    action: 'Darse de baja',
    outro: 'Si no lo pediste, puedes ignorar este mensaje; nada cambiará.',
  },
};
