import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Config } from '../../config';
import { createDb, type Db } from '../../db/knex';
import { archiveCreatedAt, pgDump, pgRestore, toolsForServer } from '../../integrations/pg-tools';
import { archiveName, backupDir, listArchives, pruneArchives } from './archives';
import { recordRun } from './backups.repo';

/**
 * Logical backups (docs/operations/backups.md): pg_dump's custom format into BACKUP_DIR,
 * pg_restore back, and a verified restore into a scratch database. `url` is always a direct
 * connection to the server (DATABASE_DIRECT_URL when the service goes through a pooler).
 */

export type BackupConfig = Pick<Config, 'BACKUP_DIR' | 'DATA_DIR' | 'BACKUP_KEEP' | 'PG_BIN_DIR'>;

/** The operation cannot go ahead (a refused restore, no archive); printed, exit 1. */
export class BackupError extends Error {}

async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 30_000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

// Schemas Postgres itself keeps in every database: never counted as data, never dropped.
const SYSTEM_SCHEMAS = `nspname not like 'pg\\_%' and nspname <> 'information_schema'`;

/** Takes a backup of the database at `url`, records it in `db`, and returns the archive's path. */
export async function takeBackup(db: Db, config: BackupConfig, url: string): Promise<{ file: string; restorePoint: Date }> {
  const dir = backupDir(config);
  const file = path.join(dir, archiveName(new Date()));
  // Written under another name and renamed once complete: an interrupted dump is never "the latest archive".
  const partial = path.join(dir, `.${path.basename(file)}.partial`);
  try {
    const tools = await toolsForServer(url, config.PG_BIN_DIR);
    fs.mkdirSync(dir, { recursive: true });
    await pgDump(url, partial, tools);
    fs.renameSync(partial, file);
    const restorePoint = await archiveCreatedAt(file, config.PG_BIN_DIR);
    await recordRun(db, { kind: 'backup', method: 'logical', ok: true, archive: file, restorePoint });
    return { file, restorePoint };
  } catch (err) {
    fs.rmSync(partial, { force: true });
    await recordRun(db, { kind: 'backup', method: 'logical', ok: false, detail: (err as Error).message }).catch(() => undefined);
    throw err;
  }
}

/** The worker's daily backup: one archive, then all but the BACKUP_KEEP newest removed. */
export async function dailyBackup(db: Db, config: BackupConfig, url: string): Promise<{ file: string; pruned: string[] }> {
  const { file } = await takeBackup(db, config, url);
  return { file, pruned: pruneArchives(backupDir(config), config.BACKUP_KEEP) };
}

/** Relations outside Postgres's own schemas: a database with any is not empty. */
async function userRelations(c: Client): Promise<number> {
  const { rows } = await c.query<{ n: number }>(
    `select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where ${SYSTEM_SCHEMAS} and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')`,
  );
  return rows[0]!.n;
}

/** Drops every schema but Postgres's own and recreates an empty `public`: the state of a new database. */
async function emptyDatabase(c: Client): Promise<void> {
  const { rows } = await c.query<{ nspname: string }>(`select nspname from pg_namespace where ${SYSTEM_SCHEMAS}`);
  await c.query('begin');
  for (const r of rows) await c.query(`drop schema ${c.escapeIdentifier(r.nspname)} cascade`);
  await c.query('create schema public');
  await c.query('commit');
}

/** `file` as given, or the archive of that name in BACKUP_DIR. */
export function resolveArchive(config: BackupConfig, file: string): string {
  if (fs.existsSync(file)) return path.resolve(file);
  const inDir = path.join(backupDir(config), file);
  if (fs.existsSync(inDir)) return inDir;
  throw new BackupError(`no such archive: ${file}`);
}

/**
 * Restores `file` into the database at `url`. A database holding any table is refused unless
 * `force`, which first empties it (every schema dropped) so nothing of the old state survives
 * beside the restored one. The archive's table of contents is read before anything is dropped.
 */
export async function restoreArchive(config: BackupConfig, url: string, file: string, opts: { force: boolean }): Promise<{ restorePoint: Date }> {
  const restorePoint = await archiveCreatedAt(file, config.PG_BIN_DIR);
  const tools = await toolsForServer(url, config.PG_BIN_DIR);
  await withClient(url, async (c) => {
    const n = await userRelations(c);
    if (n > 0 && !opts.force) {
      throw new BackupError(`the database is not empty (${n} tables, views or sequences): restore refused; --force drops everything in it first`);
    }
    if (n > 0) await emptyDatabase(c);
  });
  await pgRestore(url, file, tools);
  return { restorePoint };
}

export interface RestoredReport {
  problems: string[];
  counts: Record<string, number>;
}
/** Judges a restored copy (the CLI and the worker pass check-ledger's report). */
export type RestoredCheck = (db: Db) => Promise<RestoredReport>;

/**
 * Runs `check` against the database at `url`: the one step every way of verifying shares, whatever
 * restored the copy (a scratch database here, a scratch cluster on a free port for pgBackRest).
 */
export async function checkRestoredDatabase(url: string, check: RestoredCheck): Promise<RestoredReport> {
  const scratch = createDb(url, { max: 2 });
  try {
    return await check(scratch);
  } finally {
    await scratch.destroy();
  }
}

export interface Verified extends RestoredReport {
  archive: string;
  restorePoint: Date;
}

/**
 * Restores the newest archive of BACKUP_DIR into a scratch database on the same server (random
 * name, dropped afterwards whatever happened), checks it, and records the result in `db`.
 * Throws BackupError when there is no archive, it does not restore, or the check finds problems.
 */
export async function verifyLatestArchive(db: Db, config: BackupConfig, url: string, check: RestoredCheck): Promise<Verified> {
  const archive = listArchives(backupDir(config))[0];
  const fail = async (message: string, restorePoint?: Date): Promise<never> => {
    await recordRun(db, { kind: 'verify', method: 'logical', ok: false, archive, restorePoint, detail: message }).catch(() => undefined);
    throw new BackupError(message);
  };
  if (!archive) return fail(`no archive in ${backupDir(config)} to verify`);
  let restorePoint: Date | undefined;
  let report: RestoredReport;
  const name = `verify_backup_${randomBytes(6).toString('hex')}`;
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  try {
    restorePoint = await archiveCreatedAt(archive, config.PG_BIN_DIR);
    const tools = await toolsForServer(url, config.PG_BIN_DIR);
    await withClient(url, (c) => c.query(`create database ${name}`));
    try {
      await pgRestore(scratch.toString(), archive, tools);
      report = await checkRestoredDatabase(scratch.toString(), check);
    } finally {
      await withClient(url, (c) => c.query(`drop database if exists ${name} with (force)`));
    }
  } catch (err) {
    return fail(`${path.basename(archive)} did not restore: ${(err as Error).message}`, restorePoint);
  }
  if (report.problems.length) {
    return fail(`${path.basename(archive)} restored with ${report.problems.length} ledger difference(s):\n${report.problems.join('\n')}`, restorePoint);
  }
  await recordRun(db, { kind: 'verify', method: 'logical', ok: true, archive, restorePoint, detail: JSON.stringify(report.counts) });
  return { archive, restorePoint: restorePoint!, ...report };
}
