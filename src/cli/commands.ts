import fs from 'node:fs';
import path from 'node:path';
import { KNOWN_FLAGS, setFlag } from '../http/flags';
import { campaignCount } from '../modules/fundraisers';
import { ledgerGroupCount } from '../modules/ledger';
import { refreshLeaderboard } from '../modules/leaderboard';
import { backupCommands } from './backup-commands';
import { CliError, oneOf, quiet, UsageError, withHeartbeat, type Command } from './command';
import { identityCommands } from './identity-commands';
import { jobsCommands } from './jobs-commands';
import { mailCommands } from './mail-commands';
import { moneyCommands } from './money-commands';
import { orgCommands } from './org-commands';
import { privacyCommands } from './privacy-commands';

export { CliError, UsageError, type Command } from './command';

const SEEDS = path.resolve(__dirname, '../../seeds');

/** Operator commands. Each returns what to print (one line, except `mails`, `jobs` and `help`); throw CliError for a failure, UsageError for a wrong call. */
export const commands: Record<string, Command> = {
  ...identityCommands,
  ...mailCommands,
  ...orgCommands,
  ...jobsCommands,
  ...moneyCommands,
  ...privacyCommands,
  ...backupCommands,
  'set-flag': {
    usage: '<features.key> on|off',
    summary: `turn a feature flag on or off (${KNOWN_FLAGS.join(', ')})`,
    check([key, value]) {
      oneOf('flag', key, KNOWN_FLAGS);
      if (value !== 'on' && value !== 'off') throw new UsageError('set-flag: value must be on or off');
    },
    async run(db, [key, value]) {
      await setFlag(db, key!, value === 'on');
      return `${key} is now ${value}`;
    },
  },
  'check-ledger': {
    usage: '',
    summary: 'recompute every money counter from the ledger and the donations; exit 1 listing each difference',
    async run(db, _args, _config, progress = quiet) {
      progress('check-ledger: recomputing counters from the ledger and the donations');
      // Loaded here, not at the top: the checks come from every module's declaration (so every
      // route table loads), which no other command needs; each command is its own process.
      const { checkLedger } = require('../modules/integrity') as typeof import('../modules/integrity');
      const problems = await withHeartbeat(progress, 'check-ledger', () => checkLedger(db));
      if (problems.length > 0) throw new CliError(`ledger has ${problems.length} difference(s):\n${problems.join('\n')}`);
      const [groups, campaigns] = await Promise.all([ledgerGroupCount(db), campaignCount(db)]);
      return `ledger clean: ${groups} groups, ${campaigns} campaigns checked`;
    },
  },
  'seed-demo': {
    usage: '',
    summary: 'load the demo data set of seeds/ (running it twice changes nothing)',
    async run(db, _args, _config, progress = quiet) {
      const files = fs.readdirSync(SEEDS).filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts')).sort();
      for (const [i, file] of files.entries()) {
        progress(`seed-demo: ${i + 1}/${files.length} ${file}`);
        await db.seed.run({ directory: SEEDS, loadExtensions: ['.ts', '.js'], specific: file });
      }
      const live = await campaignCount(db, { slugPrefix: 'demo-' });
      return `demo data loaded (${files.length} seed file(s)); ${live} demo campaigns`;
    },
  },
  'rebuild-leaderboard': {
    usage: '',
    summary: 'rebuild the leaderboard of every period now (the worker also does every 5 minutes)',
    async run(db, _args, _config, progress = quiet) {
      const t0 = Date.now();
      progress('rebuild-leaderboard: rebuilding every period');
      await withHeartbeat(progress, 'rebuild-leaderboard', () => refreshLeaderboard(db));
      return `leaderboard rebuilt in ${((Date.now() - t0) / 1000).toFixed(1)} s`;
    },
  },
};

/** `help`: every command with its arguments and what it does, and the exit codes. */
export function helpText(): string {
  const names = Object.keys(commands).sort();
  const width = Math.max(...names.map((n) => `${n} ${commands[n]!.usage}`.length));
  return [
    'Usage: npm run admin -- <command> [arguments]',
    '',
    'Commands:',
    `  ${'help'.padEnd(width)}  list the commands`,
    ...names.map((n) => `  ${`${n} ${commands[n]!.usage}`.padEnd(width)}  ${commands[n]!.summary}`),
    '',
    'Exit codes: 0 done; 1 the operation failed (message on stderr); 2 wrong call (unknown command, flag, role, status or argument).',
  ].join('\n');
}
