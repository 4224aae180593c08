import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config';

// backup-20261128T163005.123Z.dump: basic ISO 8601 in UTC, so names sort as the times do.
const NAME = /^backup-\d{8}T\d{6}\.\d{3}Z\.dump$/;

/** BACKUP_DIR, by default DATA_DIR/backups, as an absolute path. */
export function backupDir(config: Pick<Config, 'BACKUP_DIR' | 'DATA_DIR'>): string {
  return path.resolve(config.BACKUP_DIR ?? path.join(config.DATA_DIR, 'backups'));
}

export function archiveName(at: Date): string {
  return `backup-${at.toISOString().replace(/[-:]/g, '')}.dump`;
}

/** The archives in `dir`, newest first (a name's time is when its backup began). */
export function listArchives(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => NAME.test(f))
    .sort()
    .reverse()
    .map((f) => path.join(dir, f));
}

/** Removes all but the `keep` newest archives; returns the removed paths. */
export function pruneArchives(dir: string, keep: number): string[] {
  const old = listArchives(dir).slice(keep);
  for (const f of old) fs.rmSync(f, { force: true });
  return old;
}
