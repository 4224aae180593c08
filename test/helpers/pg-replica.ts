import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes';
import { reapedFolder } from './reaped';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

/**
 * A Postgres 15 primary and one hot standby of it (`pg_basebackup -R`) in a temporary folder,
 * each on a free loopback port, from Debian's binaries. Postgres refuses to run as root, so as
 * root every command runs as the `postgres` user and the folder is handed to it. `prepare` runs
 * against the primary before the base backup (e.g. migrations), so the standby starts with it.
 */
export interface PgPair {
  primaryUrl: string;
  replicaUrl: string;
  dir: string;
  /** Runs SQL on the replica (pg_wal_replay_pause() and friends) through psql. */
  replicaSql(sql: string): Promise<string>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  stop(): Promise<void>;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function as(cmd: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const file = path.join(BIN, cmd);
  return isRoot ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
}

function serverFlags(port: number, dir: string): string {
  // Durability is not under test here: fsync off keeps the pair quick on a busy machine.
  return [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c max_connections=60',
    '-c wal_level=replica',
    '-c max_wal_senders=4',
    '-c hot_standby=on',
    '-c wal_receiver_status_interval=1s',
    '-c shared_buffers=32MB',
  ].join(' ');
}

async function ctl(dataDir: string, port: number, sockets: string, action: 'start' | 'stop'): Promise<void> {
  if (action === 'start') {
    await as('pg_ctl', ['-D', dataDir, '-l', `${dataDir}.log`, '-w', '-t', '60', '-o', serverFlags(port, sockets), 'start']);
  } else {
    await as('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', '-t', '60', 'stop']);
  }
}

export async function startPgPair(opts: { prepare?: (primaryUrl: string) => Promise<void> } = {}): Promise<PgPair> {
  // Both postmasters sit directly under it, where its reaper looks should this process die first.
  const dir = reapedFolder('pg-replica-');
  if (isRoot) await run('chown', ['postgres:postgres', dir]);
  fs.chmodSync(dir, 0o700);
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const primaryPort = await freePort();
  const replicaPort = await freePort();
  await as('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  await ctl(primaryDir, primaryPort, dir, 'start');
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  let replicaUp = false;
  const pair: PgPair = {
    primaryUrl,
    replicaUrl,
    dir,
    async replicaSql(sql) {
      const psql = ['-h', '127.0.0.1', '-p', String(replicaPort), '-U', 'postgres', '-d', 'postgres', '-Atc', sql];
      return (await as('psql', psql)).stdout.trim();
    },
    async stopReplica() {
      await ctl(replicaDir, replicaPort, dir, 'stop');
      replicaUp = false;
    },
    async startReplica() {
      await ctl(replicaDir, replicaPort, dir, 'start');
      replicaUp = true;
    },
    async stop() {
      if (replicaUp) await pair.stopReplica().catch(() => undefined);
      await ctl(primaryDir, primaryPort, dir, 'stop').catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    if (opts.prepare) await opts.prepare(primaryUrl);
    await as('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast']);
    await pair.startReplica();
  } catch (err) {
    await pair.stop();
    throw err;
  }
  return pair;
}
