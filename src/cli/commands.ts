import path from 'node:path';
import { setFlag } from '../http/flags';
import { checkLedger } from '../modules/integrity';
import { CliError, type Command } from './command';
import { identityCommands } from './identity-commands';
import { mailCommands } from './mail-commands';
import { orgCommands } from './org-commands';

export { CliError, type Command } from './command';

/** Operator commands. Each returns what to print (one line, except `mails`); throw CliError for a usage problem. */
export const commands: Record<string, Command> = {
  ...identityCommands,
  ...mailCommands,
  ...orgCommands,
  'set-flag': {
    usage: '<features.key> on|off',
    async run(db, [key, value]) {
      if (!key || !/^features\.[a-z0-9_]+$/.test(key)) throw new CliError('set-flag: key must look like features.some_flag');
      if (value !== 'on' && value !== 'off') throw new CliError('set-flag: value must be on or off');
      await setFlag(db, key, value === 'on');
      return `${key} is now ${value}`;
    },
  },
  'check-ledger': {
    usage: '(recomputes every money counter from the ledger and the donations; exits 1 listing each difference)',
    async run(db) {
      const problems = await checkLedger(db);
      if (problems.length > 0) throw new CliError(`ledger has ${problems.length} difference(s):\n${problems.join('\n')}`);
      const { rows } = await db.raw('select (select count(distinct group_id) from ledger_entries) as groups, (select count(*) from fundraisers) as campaigns');
      return `ledger clean: ${Number(rows[0].groups)} groups, ${Number(rows[0].campaigns)} campaigns checked`;
    },
  },
  'seed-demo': {
    usage: '(loads the demo data set of seeds/; running it twice changes nothing)',
    async run(db) {
      const [files] = await db.seed.run({ directory: path.resolve(__dirname, '../../seeds'), loadExtensions: ['.ts', '.js'] });
      const live = await db('fundraisers').where('slug', 'like', 'demo-%').count<{ n: number }[]>({ n: '*' });
      return `demo data loaded (${files.length} seed file(s)); ${Number(live[0]?.n ?? 0)} demo campaigns`;
    },
  },
};
