import type { Locale, MailTemplate } from './types';

/** Wording of one mail in one locale; `{link}` / `{code}` are placed by the renderer. */
interface Copy {
  subject: string;
  intro: string;
  /** Button label for link mails, lead-in for code mails. */
  action: string;
  outro: string;
}

const COPY: Record<MailTemplate, Record<Locale, Copy>> = {
  email_verification: {
    en: {
      subject: 'Verify your email address',
      intro: 'Please confirm your email address by opening the link below.',
      action: 'Verify email address',
      outro: 'The link is valid for 24 hours. If you did not create an account, you can ignore this message.',
    },
    ru: {
      subject: 'Подтвердите адрес электронной почты',
      intro: 'Чтобы подтвердить адрес электронной почты, откройте ссылку ниже.',
      action: 'Подтвердить адрес',
      outro: 'Ссылка действует 24 часа. Если вы не создавали аккаунт, просто проигнорируйте это письмо.',
    },
    uk: {
      subject: 'Підтвердьте адресу електронної пошти',
      intro: 'Щоб підтвердити адресу електронної пошти, відкрийте посилання нижче.',
      action: 'Підтвердити адресу',
      outro: 'Посилання дійсне 24 години. Якщо ви не створювали обліковий запис, просто проігноруйте цей лист.',
    },
    es: {
      subject: 'Verifica tu dirección de correo electrónico',
      intro: 'Para confirmar tu dirección de correo electrónico, abre el siguiente enlace.',
      action: 'Verificar dirección',
      outro: 'El enlace es válido durante 24 horas. Si no creaste una cuenta, puedes ignorar este mensaje.',
    },
  },
  private_contact_verification: {
    en: {
      subject: 'Verify your private contact email',
      intro: 'Please confirm this address as the private contact email of your account by opening the link below.',
      action: 'Verify contact email',
      outro: 'The link is valid for 24 hours. If you did not ask for this, you can ignore this message.',
    },
    ru: {
      subject: 'Подтвердите контактный адрес электронной почты',
      intro: 'Чтобы подтвердить этот адрес как закрытый контактный адрес вашего аккаунта, откройте ссылку ниже.',
      action: 'Подтвердить контактный адрес',
      outro: 'Ссылка действует 24 часа. Если вы этого не запрашивали, просто проигнорируйте письмо.',
    },
    uk: {
      subject: 'Підтвердьте контактну адресу електронної пошти',
      intro: 'Щоб підтвердити цю адресу як приватну контактну адресу вашого облікового запису, відкрийте посилання нижче.',
      action: 'Підтвердити контактну адресу',
      outro: 'Посилання дійсне 24 години. Якщо ви цього не запитували, просто проігноруйте лист.',
    },
    es: {
      subject: 'Verifica tu correo de contacto privado',
      intro: 'Para confirmar esta dirección como el correo de contacto privado de tu cuenta, abre el siguiente enlace.',
      action: 'Verificar correo de contacto',
      outro: 'El enlace es válido durante 24 horas. Si no lo solicitaste, puedes ignorar este mensaje.',
    },
  },
  password_reset: {
    en: {
      subject: 'Your password reset code',
      intro: 'Use this code to reset your password:',
      action: 'Your code',
      outro: 'The code is valid for one hour and can be used once. If you did not ask to reset your password, you can ignore this message.',
    },
    ru: {
      subject: 'Код для сброса пароля',
      intro: 'Используйте этот код, чтобы сбросить пароль:',
      action: 'Ваш код',
      outro: 'Код действует один час и может быть использован один раз. Если вы не запрашивали сброс пароля, проигнорируйте это письмо.',
    },
    uk: {
      subject: 'Код для скидання пароля',
      intro: 'Використайте цей код, щоб скинути пароль:',
      action: 'Ваш код',
      outro: 'Код дійсний одну годину і може бути використаний один раз. Якщо ви не запитували скидання пароля, проігноруйте цей лист.',
    },
    es: {
      subject: 'Tu código para restablecer la contraseña',
      intro: 'Usa este código para restablecer tu contraseña:',
      action: 'Tu código',
      outro: 'El código es válido durante una hora y solo puede usarse una vez. Si no solicitaste restablecer tu contraseña, puedes ignorar este mensaje.',
    },
  },
};

/** Which variable each template needs. */
const NEEDS: Record<MailTemplate, 'link' | 'code'> = {
  email_verification: 'link',
  private_contact_verification: 'link',
  password_reset: 'code',
};

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function layout(locale: Locale, subject: string, body: string): string {
  return (
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>` +
    `<body style="font-family:Arial,Helvetica,sans-serif;color:#222;line-height:1.5">${body}</body></html>`
  );
}

export function renderMail(template: MailTemplate, locale: Locale, vars: Record<string, string>): RenderedMail {
  const copy = COPY[template]?.[locale];
  if (!copy) throw new Error(`Unknown mail template ${template}/${locale}`);
  const need = NEEDS[template];
  const value = vars[need];
  if (typeof value !== 'string' || value.length === 0) throw new Error(`Mail template ${template} needs vars.${need}`);
  if (need === 'link' && !/^https?:\/\//i.test(value)) throw new Error(`Mail template ${template}: link must be http(s)`);

  const text = `${copy.intro}\n\n${need === 'code' ? `${copy.action}: ${value}` : value}\n\n${copy.outro}\n`;
  const v = escapeHtml(value);
  const action =
    need === 'link'
      ? `<p><a href="${v}" style="display:inline-block;padding:10px 18px;background:#1a7f5a;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(copy.action)}</a></p>` +
        `<p style="font-size:13px;color:#555;word-break:break-all"><a href="${v}">${v}</a></p>`
      : `<p>${escapeHtml(copy.action)}: <strong style="font-size:22px;letter-spacing:4px">${v}</strong></p>`;
  const html = layout(locale, copy.subject, `<p>${escapeHtml(copy.intro)}</p>${action}<p>${escapeHtml(copy.outro)}</p>`);
  return { subject: copy.subject, text, html };
}
