import type { Config } from '../config';
import type { Db } from '../db/knex';
import path from 'node:path';
import { setFlag } from '../http/flags';
import { identityCommands } from './identity-commands';

export class CliError extends Error {}

export interface Command {
  usage: string;
  run(db: Db, args: string[], config: Config): Promise<string>;
}

/** Operator commands. Each returns the one line to print; throw CliError for a usage problem. */
export const commands: Record<string, Command> = {
  ...identityCommands,
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
