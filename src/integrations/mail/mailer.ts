import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../config';
import type { Logger } from '../../infra/logger';

export interface OutgoingMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, e.g. List-Unsubscribe. */
  headers?: Record<string, string>;
}

/** Where rendered mail goes. The outbox table keeps every mail whichever mailer runs. */
export interface Mailer {
  readonly kind: 'smtp' | 'log';
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** SMTP_URL set: nodemailer over SMTP. */
export class SmtpMailer implements Mailer {
  readonly kind = 'smtp' as const;
  private readonly transport: Transporter;

  constructor(url: string) {
    this.transport = nodemailer.createTransport(url);
  }

  async send(mail: OutgoingMail): Promise<void> {
    await this.transport.sendMail(mail);
  }

  close(): void {
    this.transport.close();
  }
}

/** No SMTP_URL: the mail is only logged (and stays readable in mail_outbox). */
export class LogMailer implements Mailer {
  readonly kind = 'log' as const;
  /** `withBody` false keeps links and codes (live credentials) out of production logs. */
  constructor(
    private readonly log: Logger,
    private readonly withBody = true,
  ) {}

  async send(mail: OutgoingMail): Promise<void> {
    const { to, from, subject, text } = mail;
    this.log.info({ mail: this.withBody ? { to, from, subject, text } : { to, from, subject } }, 'mail (not sent: no SMTP_URL)');
  }

  close(): void {}
}

export function createMailer(config: Pick<Config, 'SMTP_URL' | 'NODE_ENV'>, log: Logger): Mailer {
  return config.SMTP_URL ? new SmtpMailer(config.SMTP_URL) : new LogMailer(log, config.NODE_ENV !== 'production');
}
