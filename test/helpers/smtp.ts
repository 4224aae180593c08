import type { AddressInfo } from 'node:net';
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  /** RCPT TO addresses of the SMTP envelope. */
  envelopeTo: string[];
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface SmtpCapture {
  port: number;
  /** SMTP_URL for the app under test. */
  url: string;
  messages: CapturedMail[];
  /**
   * Connections a client broke off in the middle of a message (a worker killed while it sent one
   * resets its connection): that message was never accepted, so its sender's retry is what counts.
   */
  dropped: Error[];
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 (random port) that parses and keeps every message it receives. */
export async function startSmtpCapture(): Promise<SmtpCapture> {
  const messages: CapturedMail[] = [];
  const dropped: Error[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', callback);
      stream.on('end', () => {
        PostalMime.parse(Buffer.concat(chunks))
          .then((mail) => {
            messages.push({
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              from: mail.from?.address ?? '',
              to: (mail.to ?? []).map((a) => ('address' in a ? (a.address ?? '') : '')),
              subject: mail.subject ?? '',
              text: mail.text ?? '',
              html: mail.html ?? '',
            });
            callback();
          })
          .catch(callback);
      });
    },
  });
  // smtp-server re-emits a client's reset inside a transaction (after MAIL FROM) as the server's
  // 'error': unheard, it is an uncaught `read ECONNRESET` that fails whichever test is running.
  // Only a client's connection carries remoteAddress; anything else stays as loud as it was.
  server.on('error', (err: Error) => {
    if ('remoteAddress' in err) dropped.push(err);
    else throw err;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    dropped,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
