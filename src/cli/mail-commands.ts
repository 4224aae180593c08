import { latestMailsTo } from '../integrations/mail';
import { CliError, type Command } from './command';

const DEFAULT_COUNT = 5;
const MAX_COUNT = 50;

/**
 * Mail lookups for operators: without SMTP_URL nothing leaves the machine, and production logs
 * leave out links and codes, so the outbox row is where a verification link or reset code is read.
 */
export const mailCommands: Record<string, Command> = {
  mails: {
    summary: 'print the last mails sent to an address (links, codes)',
    usage: `<email> [count]  (the last mails to that address, newest first; count 1 to ${MAX_COUNT}, default ${DEFAULT_COUNT})`,
    async run(db, [email, countArg]) {
      if (!email || !email.includes('@')) throw new CliError('mails: give the email address, e.g. mails ada@example.com 3');
      const count = countArg === undefined ? DEFAULT_COUNT : Number(countArg);
      if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) throw new CliError(`mails: count must be a whole number from 1 to ${MAX_COUNT}`);
      const rows = await latestMailsTo(db, email.trim(), count);
      if (rows.length === 0) return `no mail to ${email}`;
      const blocks = rows.map((m) => {
        const when = new Date(m.sent_at ?? m.created_at).toISOString();
        return [`=== ${when}  [${m.status}]  ${m.subject}`, m.text.trimEnd()].join('\n');
      });
      return [`${rows.length} mail(s) to ${email}, newest first`, ...blocks].join('\n\n');
    },
  },
};
