import {
  backupDir,
  describeBackup,
  pgBackRestOf,
  resolveArchive,
  restoreArchive,
  takeBackup,
  verifyLatestArchive,
  verifyLatestBackup,
  type RestoredReport,
} from '../modules/backups';
import { CliError, quiet, UsageError, withHeartbeat, type Command, type Database } from './command';

/** Logical backups of the service's database (docs/operations/backups.md). */

function target(database: Database | undefined): string {
  if (!database) throw new CliError('no database to act on');
  return database.directUrl;
}

function restoreArgs(args: string[]): { file: string; force: boolean } {
  const rest = args.filter((a) => a !== '--force');
  const unknown = rest.find((a) => a.startsWith('-'));
  if (unknown) throw new UsageError(`unknown argument: ${unknown}`);
  if (rest.length !== 1) throw new UsageError('restore takes one archive file');
  return { file: rest[0]!, force: args.includes('--force') };
}

/** check-ledger's report on a restored copy; loaded here: it needs every module's checks. */
export function ledgerReport(): (db: Parameters<Command['run']>[0]) => Promise<RestoredReport> {
  const { integrityReport } = require('../modules/integrity') as typeof import('../modules/integrity');
  return integrityReport;
}

const counts = (c: Record<string, number>) => `${c.campaigns} campaigns, ${c.gifts} gifts, ${c.ledger_groups} ledger groups`;

export const backupCommands: Record<string, Command> = {
  backup: {
    usage: '',
    summary: "pg_dump (custom format) of the service's database into BACKUP_DIR; prints the archive's path",
    check(args) {
      if (args.length) throw new UsageError(`unknown argument: ${args[0]}`);
    },
    async run(db, _args, config, progress = quiet, database) {
      progress(`backup: pg_dump into ${backupDir(config)}`);
      const { file } = await withHeartbeat(progress, 'backup', () => takeBackup(db, config, target(database)));
      return file;
    },
  },
  restore: {
    usage: '<archive> [--force]',
    summary: 'pg_restore an archive into the service\'s database, which must be empty unless --force (then everything in it is dropped first)',
    migrate: false,
    check: (args) => void restoreArgs(args),
    async run(_db, args, config, progress = quiet, database) {
      const { file, force } = restoreArgs(args);
      const archive = resolveArchive(config, file);
      progress(`restore: pg_restore ${archive}${force ? ' (--force: the database is emptied first)' : ''}`);
      const { restorePoint } = await withHeartbeat(progress, 'restore', () => restoreArchive(config, target(database), archive, { force }));
      // No check-ledger here: an archive older than this code is migrated by the next start, not yet.
      return `restored ${archive}; restore point ${restorePoint.toISOString()}`;
    },
  },
  'verify-backup': {
    usage: '',
    summary:
      'restore the newest backup (pgBackRest with PGBACKREST_STANZA: into a scratch server on a free port; else the newest archive of BACKUP_DIR into a scratch database), run check-ledger on it, print its restore point and counts, remove it; exit 1 on any failure',
    check(args) {
      if (args.length) throw new UsageError(`unknown argument: ${args[0]}`);
    },
    async run(db, _args, config, progress = quiet, database) {
      const repo = pgBackRestOf(config);
      if (repo) {
        progress(`verify-backup: pgbackrest restore of stanza ${repo.stanza}'s newest backup into a scratch folder`);
        const v = await withHeartbeat(progress, 'verify-backup', () => verifyLatestBackup(db, config, target(database), ledgerReport()));
        const to = v.recoveredTo ? `recovered to ${v.recoveredTo.toISOString()} (its last transaction; WAL archive up to ${v.archiveMax})` : `recovered to the end of the WAL archive (${v.archiveMax})`;
        return `verified pgBackRest backup ${describeBackup(v.backup)}; ${to}; ${counts(v.counts)}; ledger clean`;
      }
      progress(`verify-backup: restoring the newest archive of ${backupDir(config)} into a scratch database`);
      const v = await withHeartbeat(progress, 'verify-backup', () => verifyLatestArchive(db, config, target(database), ledgerReport()));
      return `verified ${v.archive}; restore point ${v.restorePoint.toISOString()}; ${counts(v.counts)}; ledger clean`;
    },
  },
};
