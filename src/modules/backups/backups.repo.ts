import type { Db } from '../../db/knex';

export type BackupMethod = 'logical' | 'pgbackrest';

export interface BackupRun {
  kind: 'backup' | 'verify';
  method: BackupMethod;
  ok: boolean;
  archive?: string | null;
  restorePoint?: Date | null;
  detail?: string | null;
  /** When it finished, when not now (a backup pgBackRest took earlier, seen by the worker). */
  finishedAt?: Date;
}

/** Records one backup or verified restore (the metrics read the newest successful of each). */
export async function recordRun(db: Db, run: BackupRun): Promise<void> {
  await db('backup_runs').insert({
    kind: run.kind,
    method: run.method,
    ok: run.ok,
    archive: run.archive ?? null,
    restore_point: run.restorePoint ?? null,
    detail: run.detail?.slice(0, 4000) ?? null,
    ...(run.finishedAt ? { finished_at: run.finishedAt } : {}),
  });
}

/** When the newest successful backup and verified restore finished, in Unix seconds (0: never). */
export async function lastSuccesses(db: Db): Promise<{ backup: number; verify: number }> {
  const { rows } = await db.raw<{ rows: Array<{ kind: string; at: number | null }> }>(
    `select k.kind, extract(epoch from (select max(finished_at) from backup_runs r where r.kind = k.kind and r.ok))::float8 as at
       from (values ('backup'), ('verify')) k(kind)`,
  );
  const at = (kind: string) => Number(rows.find((r) => r.kind === kind)?.at ?? 0);
  return { backup: at('backup'), verify: at('verify') };
}
