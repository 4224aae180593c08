import path from 'node:path';
import { setFlag } from '../http/flags';
import { CliError, type Command } from './command';
import { identityCommands } from './identity-commands';
import { mailCommands } from './mail-commands';

export { CliError, type Command } from './command';

/** Operator commands. Each returns what to print (one line, except `mails`); throw CliError for a usage problem. */
export const commands: Record<string, Command> = {
  ...identityCommands,
  ...mailCommands,
  'set-flag': {
    usage: '<features.key> on|off',
    async run(db, [key, value]) {
      if (!key || !/^features\.[a-z0-9_]+$/.test(key)) throw new CliError('set-flag: key must look like features.some_flag');
      if (value !== 'on' && value !== 'off') throw new CliError('set-flag: value must be on or off');
      await setFlag(db, key, value === 'on');
      return `${key} is now ${value}`;
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
