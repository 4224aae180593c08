import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { freePort } from '../../infra/free-port';
import { info, restoreInto, runAs, startScratchServer, type BackupSet, type PgBackRestSettings } from '../../integrations/pgbackrest';
import { recordRun } from './backups.repo';
import { BackupError, checkRestoredDatabase, type RestoredCheck, type RestoredReport } from './backups.service';

/**
 * Physical backups are pgBackRest's (docs/operations/backups.md): it archives the WAL and takes
 * the backups on the database host. The service only restores them to prove they restore, and
 * notes the newest one it sees so /metrics says when the last backup was taken.
 */

export type PgBackRestConfig = Pick<Config, 'BACKUP_REPO_PATH' | 'PGBACKREST_CONFIG' | 'PGBACKREST_STANZA' | 'PG_BIN_DIR'>;

/** The repository the service was given, or null (then backups are logical). */
export function pgBackRestOf(config: PgBackRestConfig): PgBackRestSettings | null {
  if (!config.PGBACKREST_STANZA) return null;
  return { stanza: config.PGBACKREST_STANZA, configFile: config.PGBACKREST_CONFIG, repoPath: config.BACKUP_REPO_PATH };
}

function settingsOf(config: PgBackRestConfig): PgBackRestSettings {
  const s = pgBackRestOf(config);
  if (!s) throw new BackupError('no pgBackRest repository configured (PGBACKREST_STANZA)');
  return s;
}

const describe = (b: BackupSet) => `${b.label} (${b.type}, finished ${b.stoppedAt.toISOString()})`;

/**
 * Records the newest backup in the repository unless it is recorded already, with the time it
 * finished: backups are taken by pgBackRest on the database host, not by this service.
 */
export async function recordNewestBackup(db: Db, config: PgBackRestConfig): Promise<BackupSet | null> {
  const newest = (await info(settingsOf(config))).backups.at(-1);
  if (!newest) return null;
  const seen = await db('backup_runs').where({ kind: 'backup', method: 'pgbackrest', ok: true, archive: newest.label }).first('id');
  if (!seen) {
    await recordRun(db, { kind: 'backup', method: 'pgbackrest', ok: true, archive: newest.label, restorePoint: newest.stoppedAt, finishedAt: newest.stoppedAt, detail: newest.type });
  }
  return newest;
}

export interface VerifiedBackup extends RestoredReport {
  backup: BackupSet;
  /** The last transaction the recovery replayed (null: none after the backup). */
  recoveredTo: Date | null;
  archiveMax: string | null;
}

/**
 * `pgbackrest restore` of the newest backup into a scratch folder, recovered to the end of the
 * WAL archive, started on a free port, checked (check-ledger on the service's database, named by
 * `directUrl`), stopped and removed whatever happened. Records the result; throws BackupError on
 * any failure.
 */
export async function verifyLatestBackup(db: Db, config: PgBackRestConfig, directUrl: string, check: RestoredCheck): Promise<VerifiedBackup> {
  const s = settingsOf(config);
  const fail = async (message: string, backup?: BackupSet): Promise<never> => {
    await recordRun(db, { kind: 'verify', method: 'pgbackrest', ok: false, archive: backup?.label, restorePoint: backup?.stoppedAt, detail: message }).catch(() => undefined);
    throw new BackupError(message);
  };
  const repo = await info(s).catch((err: Error) => fail(err.message));
  const backup = repo.backups.at(-1);
  if (!backup) return fail(`no backup in the repository of stanza ${s.stanza} to verify`);
  const as = runAs(s);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'verify-backup-'));
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  fs.mkdirSync(path.join(root, 'tablespaces'), { mode: 0o700 });
  if (as) for (const p of [root, dataDir, path.join(root, 'tablespaces')]) fs.chownSync(p, as.uid, as.gid);
  const target = new URL(directUrl);
  let report: RestoredReport;
  let recoveredTo: Date | null = null;
  try {
    await restoreInto(s, dataDir, path.join(root, 'tablespaces'));
    const server = await startScratchServer({
      dataDir,
      socketDir: root,
      port: await freePort(),
      major: repo.pgMajor ?? 15,
      database: decodeURIComponent(target.pathname.slice(1)) || 'postgres',
      user: decodeURIComponent(target.username) || 'postgres',
      binDir: config.PG_BIN_DIR,
      as,
    });
    try {
      report = await checkRestoredDatabase(server.url, async (scratch) => {
        const { rows } = await scratch.raw<{ rows: Array<{ t: Date | null }> }>('select pg_last_xact_replay_timestamp() as t');
        recoveredTo = rows[0]?.t ?? null;
        return check(scratch);
      });
    } finally {
      await server.stop().catch(() => undefined);
    }
  } catch (err) {
    return fail(`backup ${describe(backup)} did not restore: ${(err as Error).message}`, backup);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  if (report.problems.length) {
    return fail(`backup ${describe(backup)} restored with ${report.problems.length} ledger difference(s):\n${report.problems.join('\n')}`, backup);
  }
  await recordRun(db, { kind: 'verify', method: 'pgbackrest', ok: true, archive: backup.label, restorePoint: recoveredTo ?? backup.stoppedAt, detail: JSON.stringify(report.counts) });
  return { backup, recoveredTo, archiveMax: repo.archiveMax, ...report };
}

export const describeBackup = describe;
