import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { startSmtpCapture, type SmtpCapture } from '../helpers/smtp';
import { queueMail, sendQueuedMail, type Locale } from '../../src/integrations/mail';
import { insertOutbox } from '../../src/integrations/mail/outbox.repo';
import { renderMail } from '../../src/integrations/mail/templates';
import { randomUUID } from 'node:crypto';

afterAll(closeDb);

const addr = (tag: string) => `mail-${tag}-${randomUUID().slice(0, 8)}@example.test`;

describe('mail over SMTP', () => {
  let smtp: SmtpCapture;
  let t: ReturnType<typeof createTestApp>;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    t = createTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'hello@crowd.test' } });
  });
  afterAll(async () => {
    t.ctx.mailer.close();
    await smtp.close();
  });

  const subjects: Record<Locale, string> = {
    en: 'Verify your email address',
    ru: 'Подтвердите адрес электронной почты',
    uk: 'Підтвердьте адресу електронної пошти',
    es: 'Verifica tu dirección de correo electrónico',
  };

  test.each(Object.keys(subjects) as Locale[])(
    'when a %s verification mail is queued and jobs run then the SMTP server receives it in that locale with the link in text and html',
    async (locale) => {
      const to = addr(locale);
      const link = `http://api.test/api/v1/idp/verify-email?token=tok-${locale}-${randomUUID()}`;
      await queueMail(testDb(), { to, template: 'email_verification', locale, vars: { link } });
      await t.runJobs();

      const got = smtp.messages.find((m) => m.envelopeTo.includes(to));
      expect(got).toBeDefined();
      expect(got!.to).toEqual([to]);
      expect(got!.from).toBe('hello@crowd.test');
      expect(got!.subject).toBe(subjects[locale]);
      expect(got!.text).toContain(link);
      expect(got!.html).toContain(`href="${link}"`);

      const row = await testDb()('mail_outbox').where({ to }).first();
      expect(row).toMatchObject({ status: 'sent', attempts: 1, template: 'email_verification', locale });
      expect(row.sent_at).toBeInstanceOf(Date);
    },
  );

  test('when a password reset mail is sent then the 6-digit code is in text and html', async () => {
    const to = addr('reset');
    await queueMail(testDb(), { to, template: 'password_reset', locale: 'es', vars: { code: '482913' } });
    await t.runJobs();
    const got = smtp.messages.find((m) => m.envelopeTo.includes(to));
    expect(got?.subject).toBe('Tu código para restablecer la contraseña');
    expect(got?.text).toContain('482913');
    expect(got?.html).toContain('482913');
  });

  test('when a private contact mail is sent then its own subject and the link are used', async () => {
    const to = addr('contact');
    const link = 'http://api.test/api/v1/idp/verify-email?token=contact-xyz';
    await queueMail(testDb(), { to, template: 'private_contact_verification', locale: 'uk', vars: { link } });
    await t.runJobs();
    const got = smtp.messages.find((m) => m.envelopeTo.includes(to));
    expect(got?.subject).toBe('Підтвердьте контактну адресу електронної пошти');
    expect(got?.text).toContain(link);
    expect(got?.html).toContain(link);
  });

  test('when the caller transaction rolls back then no outbox row exists and nothing is sent', async () => {
    const to = addr('rollback');
    await expect(
      testDb().transaction(async (trx) => {
        await queueMail(trx, { to, template: 'email_verification', locale: 'en', vars: { link: 'http://api.test/x' } });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await t.runJobs();
    expect(await testDb()('mail_outbox').where({ to })).toHaveLength(0);
    expect(smtp.messages.some((m) => m.envelopeTo.includes(to))).toBe(false);
  });

  describe('sign-up over HTTP', () => {
    const signUp = (email: string) =>
      request(t.app).post('/api/v1/idp/signup').send({ email, password: 'passw0rd-ok1' });

    test.each([
      ['Accept-Language ru-RU', 'ru', (r: request.Test) => r.set('Accept-Language', 'ru-RU,ru;q=0.9,en;q=0.5')],
      ['the lang cookie uk', 'uk', (r: request.Test) => r.set('Cookie', 'lang=uk')],
      ['the lang query es', 'es', (r: request.Test) => r.query({ lang: 'es' })],
      ['no language at all', 'en', (r: request.Test) => r],
    ] as const)('when a person signs up with %s then the verification mail goes out in %s', async (_label, locale, how) => {
      const email = addr(`signup-${locale}`);
      const res = await how(signUp(email));
      expect(res.status).toBe(201);
      // Queued, not sent inline: nothing reaches the SMTP server until the worker runs.
      expect(smtp.messages.some((m) => m.envelopeTo.includes(email))).toBe(false);
      expect(await testDb()('mail_outbox').where({ to: email }).first()).toMatchObject({ status: 'queued', locale });
      await t.runJobs();
      const got = smtp.messages.find((m) => m.envelopeTo.includes(email));
      expect(got?.subject).toBe(subjects[locale]);
      expect(got?.text).toMatch(/\/api\/v1\/idp\/verify-email\?token=[A-Za-z0-9_-]{20,}/);
      expect((await testDb()('users').where({ email }).first()).locale).toBe(locale);
    });

    test('when sign-up fails inside its transaction (bad invitation) then no mail is queued or sent', async () => {
      const email = addr('signup-rollback');
      const res = await request(t.app)
        .post('/api/v1/idp/signup')
        .send({ email, password: 'passw0rd-ok1', ambassadorInviteToken: 'no-such-invite' });
      expect(res.status).toBe(400);
      await t.runJobs();
      expect(await testDb()('mail_outbox').where({ to: email })).toHaveLength(0);
      expect(await testDb()('users').where({ email })).toHaveLength(0);
      expect(smtp.messages.some((m) => m.envelopeTo.includes(email))).toBe(false);
    });
  });

  test('when queued but jobs have not run then the outbox row waits as queued with the rendered mail', async () => {
    const to = addr('queued');
    await queueMail(testDb(), { to, template: 'password_reset', locale: 'ru', vars: { code: '123456' } });
    const row = await testDb()('mail_outbox').where({ to }).first();
    expect(row).toMatchObject({ status: 'queued', attempts: 0, subject: 'Код для сброса пароля' });
    expect(row.text).toContain('123456');
  });
});

describe('mail without SMTP', () => {
  // These drive the job handler on an outbox row that has no job, so no other test file's
  // worker can pick the mail up (all test apps share one jobs table).
  async function outboxOnly(to: string) {
    const rendered = renderMail('email_verification', 'en', { link: 'http://api.test/l' });
    return insertOutbox(testDb(), { to, template: 'email_verification', locale: 'en', ...rendered });
  }

  test('when SMTP_URL is unset then the mail is logged and the outbox row is marked sent', async () => {
    const t = createTestApp();
    expect(t.ctx.mailer.kind).toBe('log');
    const info = jest.spyOn(t.ctx.log, 'info');
    const to = addr('log');
    const id = await outboxOnly(to);
    await sendQueuedMail(t.ctx, { outbox_id: id }, { attempts: 1 });
    const row = await testDb()('mail_outbox').where({ id }).first();
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
    expect(info.mock.calls.some(([obj]) => (obj as { mail?: { to?: string } })?.mail?.to === to)).toBe(true);
  });

  test('when the SMTP server is unreachable then each attempt is recorded and the fifth marks the mail failed', async () => {
    const dead = await startSmtpCapture();
    await dead.close(); // nothing listens on this port any more
    const t = createTestApp({ env: { SMTP_URL: dead.url } });
    const id = await outboxOnly(addr('dead'));
    await expect(sendQueuedMail(t.ctx, { outbox_id: id }, { attempts: 1 })).rejects.toThrow();
    let row = await testDb()('mail_outbox').where({ id }).first();
    expect(row).toMatchObject({ status: 'queued', attempts: 1 });
    expect(row.last_error).toBeTruthy();
    for (let attempt = 2; attempt <= 5; attempt += 1) {
      await expect(sendQueuedMail(t.ctx, { outbox_id: id }, { attempts: attempt })).rejects.toThrow();
    }
    row = await testDb()('mail_outbox').where({ id }).first();
    expect(row).toMatchObject({ status: 'failed', attempts: 5 });
  });

  test('when a sent mail is run again then it is not sent twice', async () => {
    const t = createTestApp();
    const send = jest.spyOn(t.ctx.mailer, 'send');
    const id = await outboxOnly(addr('twice'));
    await sendQueuedMail(t.ctx, { outbox_id: id }, { attempts: 1 });
    await sendQueuedMail(t.ctx, { outbox_id: id }, { attempts: 2 });
    expect(send).toHaveBeenCalledTimes(1);
  });
});

describe('mail templates', () => {
  test('when a variable carries HTML then it is escaped in the html part', () => {
    const m = renderMail('email_verification', 'en', { link: 'https://x.test/?a=1&b="><script>alert(1)</script>' });
    expect(m.html).not.toContain('<script>');
    expect(m.html).toContain('&amp;b=&quot;&gt;&lt;script&gt;');
    expect(m.text).toContain('<script>'); // plain text stays literal
  });

  test('when a link template has no http(s) link then rendering refuses', () => {
    expect(() => renderMail('email_verification', 'en', { link: 'javascript:alert(1)' })).toThrow();
    expect(() => renderMail('password_reset', 'en', {})).toThrow();
  });
});
