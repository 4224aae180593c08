import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../src/infra/free-port';
import { track } from './reaper';
import { accepts, asRoot, bin, chownPostgres, until } from './util';

/** The cluster's Redis and its PgBouncer, each a child of ours recorded for the reaper. */

export interface Service {
  url: string;
  child: ChildProcess;
}

/** A Redis of the cluster's own: no persistence, loopback only. */
export async function startRedis(dir: string): Promise<Service> {
  const port = await freePort();
  const child = track(dir, spawn(bin('redis-server'), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' }));
  await until('redis', () => accepts(port), 30_000).catch((err) => (child.kill('SIGKILL'), Promise.reject(err)));
  return { url: `redis://127.0.0.1:${port}`, child };
}

/** PgBouncer in transaction mode in front of the Postgres on `pgPort` (its own folder under `dir`). */
export async function startPgBouncer(dir: string, pgPort: number): Promise<Service> {
  const port = await freePort();
  const bdir = path.join(dir, 'pgbouncer');
  fs.mkdirSync(bdir);
  fs.writeFileSync(path.join(bdir, 'users.txt'), '"postgres" ""\n');
  fs.writeFileSync(
    path.join(bdir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=127.0.0.1 port=${pgPort} user=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(bdir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 1000',
      'ignore_startup_parameters = extra_float_digits',
      'server_reset_query =',
      `logfile = ${path.join(bdir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  chownPostgres(bdir);
  const child = track(dir, spawn(bin('pgbouncer'), [...(asRoot ? ['-u', 'postgres'] : []), path.join(bdir, 'pgbouncer.ini')], { stdio: 'ignore' }));
  await until('pgbouncer', () => accepts(port), 30_000).catch((err) => (child.kill('SIGKILL'), Promise.reject(err)));
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, child };
}
