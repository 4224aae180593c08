import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { asRoot, bin, chownPostgres } from './util';

/** What the apps are told of the cluster's pgBackRest repository (settings the cluster owns). */
export function backupsEnv(config: string, repoPath: string): Record<string, string> {
  return { PGBACKREST_CONFIG: config, PGBACKREST_STANZA: STANZA, BACKUP_REPO_PATH: repoPath };
}

/**
 * The cluster's backups, as pgBackRest's user guide sets them up: one stanza for the cluster's
 * Postgres, its WAL archived by `archive_command = 'pgbackrest ... archive-push %p'` into a
 * repository in the cluster's folder, `stanza-create`, `check`, then a full backup once the
 * cluster is up. Everything pgBackRest writes (repository, locks, logs, spool) stays in the
 * folder; it runs as the user that runs Postgres (postgres when we are root: the repository's
 * files must be that user's, since archive_command writes them as that user).
 */

export const STANZA = 'cluster';

export interface Backups {
  /** pgbackrest.conf in the cluster's folder. */
  config: string;
  repoPath: string;
  stanza: string;
  /** The primary's postgresql.conf lines that archive its WAL. */
  postgresSettings: string[];
  /** The settings the apps get (verify-backup and the worker's jobs read the same repository). */
  env: Record<string, string>;
  /** `pgbackrest --config=... --stanza=... <args>` as Postgres's user; answers stdout, throws on failure. */
  run(args: string[]): string;
}

/** Writes pgbackrest.conf for the primary on `pgPort` (its sockets in `sockDir`); nothing is started. */
export function configureBackups(dir: string, pgPort: number, sockDir: string, pgDataDir: string): Backups {
  const repoPath = path.join(dir, 'backup-repo');
  const own = path.join(dir, 'pgbackrest');
  const config = path.join(dir, 'pgbackrest.conf');
  for (const d of [repoPath, own]) fs.mkdirSync(d, { mode: 0o750, recursive: true });
  fs.writeFileSync(
    config,
    [
      '[global]',
      `repo1-path=${repoPath}`,
      // Production keeps more (docs/operations/worst-days.md); a throw-away cluster needs two.
      'repo1-retention-full=2',
      `lock-path=${own}`,
      `log-path=${own}`,
      `spool-path=${own}`,
      'log-level-file=info',
      'log-level-console=warn',
      // A checkpoint at once rather than at the next scheduled one: a backup starts now.
      'start-fast=y',
      '',
      `[${STANZA}]`,
      `pg1-path=${pgDataDir}`,
      `pg1-port=${pgPort}`,
      `pg1-socket-path=${sockDir}`,
      'pg1-user=postgres',
      '',
    ].join('\n'),
  );
  chownPostgres(config);
  chownPostgres(repoPath);
  chownPostgres(own);
  const pgbackrest = bin('pgbackrest');
  const run = (args: string[]) => {
    const argv = [`--config=${config}`, `--stanza=${STANZA}`, ...args];
    const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', pgbackrest, ...argv], { encoding: 'utf8' }) : spawnSync(pgbackrest, argv, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`pgbackrest ${args.join(' ')} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`);
    return r.stdout;
  };
  return {
    config,
    repoPath,
    stanza: STANZA,
    postgresSettings: [
      'archive_mode = on',
      `archive_command = 'pgbackrest --config=${config} --stanza=${STANZA} archive-push %p'`,
      // At most a minute of commits sits in a segment not yet archived (what losing the
      // primary's disk loses); a segment is switched only when something was written.
      'archive_timeout = 60',
    ],
    env: backupsEnv(config, repoPath),
    run,
  };
}
