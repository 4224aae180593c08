import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../src/infra/free-port';
import { asRoot, chownPostgres } from './util';

/**
 * The cluster's Postgres: a primary and one streaming replica (pg_basebackup -R) from Debian's
 * binaries, each in a folder directly under the cluster's folder (where the reaper looks for
 * postmaster.pid), as the postgres user when we are root (Postgres refuses root).
 */

export const PG_BIN = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((d) => fs.existsSync(path.join(d, 'pg_ctl')));

/**
 * The primary's postgresql.conf beyond initdb's, one setting a line. A replica copies it with the
 * base backup. Whatever else the primary needs (WAL archiving, say) goes in `extraSettings` of
 * startPostgres, appended after these.
 */
export function primarySettings(port: number, sockDir: string): string[] {
  return [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${sockDir}'`,
    'wal_level = replica',
    'max_wal_senders = 5',
    'hot_standby = on',
    'max_connections = 200',
    // A throw-away cluster: durability buys nothing, speed does.
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
  ];
}

export interface PostgresPair {
  primaryUrl: string;
  replicaUrl: string;
  primaryDir: string;
  replicaDir: string;
  /** Stops the replica with a fast shutdown (its open sessions are ended, as an operator's restart would). */
  stopReplica(): void;
  startReplica(): void;
  /** Runs `sql` on the replica through node-postgres; answers its rows. */
  replicaSql<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** Stops the primary (immediate: as a lost machine would; fast: an operator's stop). */
  stopPrimary(mode?: 'immediate' | 'fast'): void;
  /** Starts the primary on its folder (a restored one, say) and waits until it accepts connections. */
  startPrimary(): void;
  /** Whether the primary's postmaster runs (pg_ctl status). */
  primaryRunning(): boolean;
  /** Stops the replica, removes its folder and clones it again from the primary (pg_basebackup -R), then starts it. */
  recloneReplica(): void;
  /** Immediate shutdown of both (a throw-away cluster). */
  stop(): void;
}

/** Runs a Postgres binary as the postgres user when we are root. */
export function pgCmd(name: string, args: string[]): [string, string[]] {
  const exe = path.join(PG_BIN!, name);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
}

function runPg(name: string, args: string[]): void {
  const [cmd, argv] = pgCmd(name, args);
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${name} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
}

const pgStart = (d: string) => runPg('pg_ctl', ['-D', d, '-l', path.join(d, 'server.log'), '-w', '-t', '120', 'start']);

function pgStop(d: string, mode: 'immediate' | 'fast'): void {
  const [cmd, argv] = pgCmd('pg_ctl', ['-D', d, '-m', mode, '-w', '-t', '60', 'stop']);
  spawnSync(cmd, argv, { stdio: 'ignore' });
}

/**
 * Starts the primary and its replica under `dir`. On failure part-way, whatever started is
 * stopped before the error is thrown.
 */
export async function startPostgres(dir: string, opts: { extraSettings?: string[]; primaryPort?: number; log?: (line: string) => void } = {}): Promise<PostgresPair> {
  const log = opts.log ?? (() => undefined);
  const pgPort = opts.primaryPort ?? (await freePort());
  const replicaPort = await freePort();
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const sockDir = path.join(dir, 'sock');
  for (const d of [primaryDir, replicaDir, sockDir]) fs.mkdirSync(d, { mode: 0o700 });
  chownPostgres(dir);
  log(`initdb ${primaryDir}`);
  runPg('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  fs.appendFileSync(path.join(primaryDir, 'postgresql.conf'), [...primarySettings(pgPort, sockDir), ...(opts.extraSettings ?? []), ''].join('\n'));
  fs.appendFileSync(path.join(primaryDir, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
  const started: string[] = [];
  const stop = () => {
    for (const d of started.reverse()) pgStop(d, 'immediate');
    started.length = 0;
  };
  const cloneReplica = () => {
    log(`pg_basebackup -R ${replicaDir}`);
    runPg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(pgPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast']);
    fs.appendFileSync(path.join(replicaDir, 'postgresql.conf'), `port = ${replicaPort}\n`);
  };
  try {
    pgStart(primaryDir);
    started.push(primaryDir);
    cloneReplica();
    pgStart(replicaDir);
    started.push(replicaDir);
  } catch (err) {
    stop();
    throw err;
  }
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
    replicaUrl,
    primaryDir,
    replicaDir,
    stopReplica: () => pgStop(replicaDir, 'fast'),
    stopPrimary: (mode = 'immediate') => pgStop(primaryDir, mode),
    startPrimary: () => pgStart(primaryDir),
    primaryRunning: () => {
      const [cmd, argv] = pgCmd('pg_ctl', ['-D', primaryDir, 'status']);
      return spawnSync(cmd, argv, { stdio: 'ignore' }).status === 0;
    },
    recloneReplica: () => {
      pgStop(replicaDir, 'immediate');
      fs.rmSync(replicaDir, { recursive: true, force: true });
      fs.mkdirSync(replicaDir, { mode: 0o700 });
      chownPostgres(replicaDir);
      cloneReplica();
      pgStart(replicaDir);
    },
    startReplica: () => pgStart(replicaDir),
    replicaSql: async <T>(sql: string) => {
      const client = new Client({ connectionString: replicaUrl, connectionTimeoutMillis: 10_000 });
      await client.connect();
      try {
        return (await client.query(sql)).rows as T[];
      } finally {
        await client.end();
      }
    },
    stop,
  };
}
