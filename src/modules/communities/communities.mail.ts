import type { ComposedMail, Locale } from '../../integrations/mail';

interface Copy {
  subject: string;
  lead: (community: string) => string;
  code: (code: string) => string;
  validity: string;
  warning: string;
}

const COPY: Record<Locale, Copy> = {
  en: {
    subject: 'Your community fund withdrawal code',
    lead: (c) => `You asked to withdraw money from the fund of “${c}”.`,
    code: (code) => `Your code: ${code}`,
    validity: 'It is valid for 10 minutes and works once.',
    warning: 'If you did not ask for it, do not share it with anyone and change your password.',
  },
  ru: {
    subject: 'Код для вывода средств из фонда сообщества',
    lead: (c) => `Вы запросили вывод средств из фонда сообщества «${c}».`,
    code: (code) => `Ваш код: ${code}`,
    validity: 'Он действует 10 минут и срабатывает один раз.',
    warning: 'Если вы его не запрашивали, никому его не сообщайте и смените пароль.',
  },
  uk: {
    subject: 'Код для виведення коштів із фонду спільноти',
    lead: (c) => `Ви запросили виведення коштів із фонду спільноти «${c}».`,
    code: (code) => `Ваш код: ${code}`,
    validity: 'Він дійсний 10 хвилин і спрацьовує один раз.',
    warning: 'Якщо ви його не запитували, нікому його не повідомляйте та змініть пароль.',
  },
  es: {
    subject: 'Tu código para retirar fondos de la comunidad',
    lead: (c) => `Has pedido retirar dinero del fondo de «${c}».`,
    code: (code) => `Tu código: ${code}`,
    validity: 'Es válido durante 10 minutos y sirve una sola vez.',
    warning: 'Si no lo pediste, no lo compartas con nadie y cambia tu contraseña.',
  },
};

export function withdrawalCodeMail(to: string, locale: Locale, community: string, code: string): ComposedMail {
  const c = COPY[locale];
  return { to, template: 'community_withdrawal_code', locale, subject: c.subject, paragraphs: [c.lead(community), c.code(code), c.validity], footer: [c.warning] };
}

/** `ada@example.com` → `a***@example.com`: enough to recognise the address, not to learn it. */
export function emailHint(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
