import { createContext } from '../create-context';
import { createLogger } from '../infra/logger';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { accountIdByEmail, eraseNow, erasureBlocks, reapplyErasures, scheduledErasures } from '../modules/privacy';
import { CliError, UsageError, type Command } from './command';

/**
 * Privacy erasures for operators (docs/decisions/0009-erasure-pseudonymises-money.md): list what is scheduled; carry one out at
 * once for a support request. Files and the identity-provider account are removed by the worker's
 * jobs queued with it.
 */
/**
 * What the privacy commands run with: a context without the read cache, and every module's
 * personal-data part (loaded here, as check-ledger does: the parts come from every module's
 * declaration, so every route table loads).
 */
function privacyContext(db: Db, config: Config) {
  const { collected } = require('../modules') as typeof import('../modules');
  return { ctx: createContext({ config: { ...config, READ_CACHE: false }, db, log: createLogger('silent') }), parts: collected.personalData };
}

/** Every logged erasure carried out again where the database has the person back (after a restore); one line. */
export async function reapplyLoggedErasures(db: Db, config: Config): Promise<string> {
  const { ctx, parts } = privacyContext(db, config);
  const r = await reapplyErasures(ctx, parts);
  const line = `erasure log: ${r.logged} erasure(s) logged; carried out again: ${r.accounts} account(s), ${r.guests} guest address(es); ${r.unchanged} already erased or not in this database`;
  if (r.unreadable.length) throw new CliError(`${line}\n${r.unreadable.length} log entr(ies) unreadable: ${r.unreadable.join(', ')}`);
  return line;
}

export const privacyCommands: Record<string, Command> = {
  'reapply-erasures': {
    usage: '',
    summary: 'after a restore: carry out again every logged erasure the database has undone (recover-since runs it too)',
    run: (db, _args, config) => reapplyLoggedErasures(db, config),
  },
  erasures: {
    usage: '',
    summary: 'list scheduled account erasures (account id, due date, asked on)',
    async run(db) {
      const rows = await scheduledErasures(db);
      if (rows.length === 0) return 'no erasure scheduled';
      return rows.map((r) => `${r.user_id}  due ${r.scheduled_for.toISOString()}  asked ${r.created_at.toISOString()}`).join('\n');
    },
  },
  erase: {
    usage: '<email> --now',
    summary: "erase an account at once (its grace period skipped); refused with the reasons while it is blocked",
    check([email, flag]) {
      if (!email || !email.includes('@')) throw new UsageError('erase: give the account email');
      if (flag !== '--now') throw new UsageError('erase: add --now to confirm erasing at once');
    },
    async run(db, [email], config) {
      const userId = await accountIdByEmail(db, email!.trim());
      if (!userId) throw new CliError(`no account with email ${email}`);
      const { ctx, parts } = privacyContext(db, config);
      const reasons = await erasureBlocks(ctx, parts, userId);
      if (reasons.length) throw new CliError(`erase: blocked: ${reasons.map((r) => `${r.code}: ${r.message}`).join('; ')}`);
      const out = await eraseNow(ctx, parts, userId);
      if (out !== 'done') throw new CliError(`erase: ${out}`);
      return `account ${userId} erased (files and the identity-provider account are removed by the worker)`;
    },
  },
};
