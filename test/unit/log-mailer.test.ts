import pino from 'pino';
import { Writable } from 'node:stream';
import { createMailer } from '../../src/integrations/mail/mailer';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

const mail = {
  to: 'ada@example.test',
  from: 'no-reply@localhost',
  subject: 'Verify your email address',
  text: 'Open http://api.test/api/v1/idp/verify-email?token=SECRET-TOKEN',
  html: '<a href="http://api.test/api/v1/idp/verify-email?token=SECRET-TOKEN">verify</a>',
};

describe('mail without SMTP_URL', () => {
  test('when not in production then the logged mail carries its text (local development reads links there)', async () => {
    const { log, lines } = capture();
    await createMailer({ SMTP_URL: undefined, NODE_ENV: 'development' }, log).send(mail);
    expect(lines.join('')).toContain('SECRET-TOKEN');
  });

  test('when NODE_ENV=production then the log names the mail but never its link or code', async () => {
    const { log, lines } = capture();
    await createMailer({ SMTP_URL: undefined, NODE_ENV: 'production' }, log).send(mail);
    const out = lines.join('');
    expect(out).toContain('ada@example.test');
    expect(out).toContain('Verify your email address');
    expect(out).not.toContain('SECRET-TOKEN');
  });
});
