import { spawn } from 'node:child_process';
import fs from 'node:fs';

/**
 * pgBackRest (Debian's `pgbackrest`) behind one small port: the service starts the tool with its
 * own options and reads its `info --output=json`; it never reads or writes the repository itself.
 * Every option not given here comes from the tool's configuration file (PGBACKREST_CONFIG) or
 * its own PGBACKREST_* environment variables, as on the command line.
 */

export interface PgBackRestSettings {
  /** pgbackrest.conf (--config); unset: the tool's default (/etc/pgbackrest.conf). */
  configFile?: string;
  stanza: string;
  /** --repo1-path, overriding the configuration file's. */
  repoPath?: string;
}

/** The tool failed: its exit code and the last lines it wrote. */
export class PgBackRestFailed extends Error {}

/**
 * Who runs the tool. Postgres refuses to run as root, and every file of the repository must stay
 * owned by the user whose `archive_command` writes there; so a root process (the cluster's apps,
 * a container) runs it as the owner of the repository folder, else of the configuration file.
 */
export function runAs(s: PgBackRestSettings): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const p of [s.repoPath, s.configFile]) {
    if (p && fs.existsSync(p)) {
      const st = fs.statSync(p);
      if (st.uid !== 0) return { uid: st.uid, gid: st.gid };
    }
  }
  return undefined;
}

export const bin = (): string => ['/usr/bin/pgbackrest', '/usr/local/bin/pgbackrest'].find((p) => fs.existsSync(p)) ?? 'pgbackrest';

/** The options every command gets: the configuration file, the stanza, the repository path. */
export function commonOptions(s: PgBackRestSettings): string[] {
  return [...(s.configFile ? [`--config=${s.configFile}`] : []), `--stanza=${s.stanza}`, ...(s.repoPath ? [`--repo1-path=${s.repoPath}`] : [])];
}

/** Runs `pgbackrest <common options> <args>`; answers its stdout. */
export function pgbackrest(s: PgBackRestSettings, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const argv = [...commonOptions(s), ...args];
    const child = spawn(bin(), argv, { ...runAs(s), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TZ: 'UTC' } });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on('error', (e) => reject(new PgBackRestFailed(`pgbackrest could not be started (${e.message}); install Debian's pgbackrest`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(Buffer.concat(out).toString());
      const why = (err.trim() || Buffer.concat(out).toString().trim()).split('\n').slice(-6).join('\n');
      reject(new PgBackRestFailed(`pgbackrest ${args.filter((a) => !a.startsWith('--')).join(' ')} failed with ${signal ?? `exit ${code}`}${why ? `:\n${why}` : ''}`));
    });
  });
}

export interface BackupSet {
  label: string;
  type: 'full' | 'diff' | 'incr';
  startedAt: Date;
  /** When the backup finished: the earliest time a restore of it can reach. */
  stoppedAt: Date;
}

export interface StanzaInfo {
  /** Oldest first, as the tool lists them. */
  backups: BackupSet[];
  /** The newest WAL segment in the archive (a restore to the latest point replays up to it). */
  archiveMax: string | null;
  /** The Postgres major version of the stanza's current database. */
  pgMajor: number | null;
  status: string;
}

interface InfoJson {
  name: string;
  status: { code: number; message: string };
  backup?: Array<{ label: string; type: BackupSet['type']; error?: boolean; timestamp: { start: number; stop: number } }>;
  archive?: Array<{ max?: string | null }>;
  // system-id is larger than a double holds exactly: nothing here reads it.
  db?: Array<{ version: string }>;
}

/** `pgbackrest info --output=json` for the stanza. */
export async function info(s: PgBackRestSettings): Promise<StanzaInfo> {
  const parsed = JSON.parse(await pgbackrest(s, ['info', '--output=json'])) as InfoJson[];
  const st = parsed.find((x) => x.name === s.stanza);
  if (!st) throw new PgBackRestFailed(`pgbackrest info: no stanza ${s.stanza}`);
  const db = st.db?.at(-1);
  return {
    backups: (st.backup ?? [])
      .filter((b) => !b.error)
      .map((b) => ({ label: b.label, type: b.type, startedAt: new Date(b.timestamp.start * 1000), stoppedAt: new Date(b.timestamp.stop * 1000) })),
    archiveMax: st.archive?.at(-1)?.max ?? null,
    pgMajor: db ? Number.parseInt(db.version, 10) : null,
    status: st.status.message,
  };
}

/**
 * `pgbackrest restore` of the newest backup into `pgPath` (an empty folder), recovering to the
 * end of the WAL archive. The copy never archives (`--archive-mode=off`: it must not push its
 * own WAL into the repository it came from) and tablespaces are remapped under `tablespaces`,
 * so nothing outside the scratch folder is written.
 */
export async function restoreInto(s: PgBackRestSettings, pgPath: string, tablespaces: string): Promise<void> {
  await pgbackrest(s, [`--pg1-path=${pgPath}`, '--archive-mode=off', `--tablespace-map-all=${tablespaces}`, '--log-level-console=warn', 'restore']);
}

export { startScratchServer, type ScratchServer } from './scratch';
