import net from 'node:net';
import nodemailer from 'nodemailer';
import { until } from '../../src/infra/until';
import { startSmtpCapture, type SmtpCapture } from '../helpers/smtp';

/** Reads the socket until a reply line starting with `code ` (the last line of a reply) has come. */
function reply(s: net.Socket, code: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (d: Buffer) => {
      seen += d.toString();
      if (new RegExp(`^${code} `, 'm').test(seen)) {
        s.off('data', onData);
        resolve();
      }
    };
    s.on('data', onData);
    s.once('error', reject);
  });
}

describe('the SMTP capture', () => {
  let smtp: SmtpCapture;
  beforeEach(async () => {
    smtp = await startSmtpCapture();
  });
  afterEach(async () => {
    await smtp.close();
  });

  test('when a client resets its connection in the middle of a message then the capture records it and takes the next mail', async () => {
    // What a worker killed with SIGKILL while sending does: the kernel resets its connection (a
    // reply it had not read yet was waiting), here with the server past MAIL FROM.
    const s = net.connect(smtp.port, '127.0.0.1');
    await reply(s, 220);
    s.write('EHLO client.test\r\n');
    await reply(s, 250);
    s.write('MAIL FROM:<sender@example.test>\r\n');
    await reply(s, 250);
    s.resetAndDestroy();

    const got = await until('the reset to reach the capture', () => smtp.dropped[0], 5_000, 10);
    expect((got as NodeJS.ErrnoException).code).toBe('ECONNRESET');

    const transport = nodemailer.createTransport(smtp.url);
    await transport.sendMail({ from: 'sender@example.test', to: 'after@example.test', subject: 'after the reset', text: 'still here' });
    transport.close();
    expect(smtp.messages.map((m) => m.subject)).toEqual(['after the reset']);
  });
});
