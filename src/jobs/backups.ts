import type { AppContext } from '../context';
import { dailyBackup, pgBackRestOf, recordNewestBackup, verifyLatestArchive, verifyLatestBackup } from '../modules/backups';
import { integrityReport } from '../modules/integrity';

export const BACKUP_TASK = 'backups.daily';
export const VERIFY_TASK = 'backups.verify';
export const NOTE_PGBACKREST_TASK = 'backups.pgbackrest-newest';

/**
 * The server itself, never a pooler: DATABASE_DIRECT_URL, else DATABASE_URL, else the embedded
 * cluster's URL, which only the pool knows (connectDatabase chose its port at start).
 */
export function directDatabaseUrl(ctx: AppContext): string {
  const fromPool = (ctx.db.client.config as { connection?: { connectionString?: string } }).connection?.connectionString;
  const url = ctx.config.DATABASE_DIRECT_URL ?? ctx.config.DATABASE_URL ?? fromPool;
  if (!url) throw new Error('no database URL to back up');
  return url;
}

/**
 * With a pgBackRest stanza (PGBACKREST_STANZA), backups are taken by pgBackRest on the database
 * host; the worker notes the newest every 10 minutes (backup_last_success_timestamp_seconds is
 * when it finished) and once a week restores it into a scratch folder and runs check-ledger.
 */
function registerPgBackRestJobs(ctx: AppContext): void {
  ctx.jobs.register(NOTE_PGBACKREST_TASK, async () => {
    const b = await recordNewestBackup(ctx.db, ctx.config);
    if (!b) ctx.log.warn('the pgBackRest repository holds no backup yet');
  });
  ctx.jobs.register(VERIFY_TASK, async () => {
    const v = await verifyLatestBackup(ctx.db, ctx.config, directDatabaseUrl(ctx), integrityReport);
    ctx.log.info({ backup: v.backup.label, recoveredTo: v.recoveredTo, counts: v.counts }, 'backup verified: restored by pgBackRest and check-ledger clean');
  });
  ctx.jobs
    .schedule({ match: '*/10 * * * *', task: NOTE_PGBACKREST_TASK, backfillSeconds: 600 })
    .schedule({ match: '53 4 * * 0', task: VERIFY_TASK, backfillSeconds: 7 * 86_400 });
}

/**
 * Where no pgBackRest repository is configured (PGBACKREST_STANZA unset), the worker takes a
 * logical backup a day, keeps the BACKUP_KEEP newest, and once a week restores the newest into a
 * scratch database and runs check-ledger on it (the alert rules expect both; ops/prometheus/).
 */
export function registerBackupJobs(ctx: AppContext): void {
  if (pgBackRestOf(ctx.config)) return registerPgBackRestJobs(ctx);
  ctx.jobs.register(BACKUP_TASK, async () => {
    const r = await dailyBackup(ctx.db, ctx.config, directDatabaseUrl(ctx));
    ctx.log.info({ archive: r.file, pruned: r.pruned.length }, 'logical backup taken');
  });
  ctx.jobs.register(VERIFY_TASK, async () => {
    const v = await verifyLatestArchive(ctx.db, ctx.config, directDatabaseUrl(ctx), integrityReport);
    ctx.log.info({ archive: v.archive, restorePoint: v.restorePoint, counts: v.counts }, 'backup verified: restored and check-ledger clean');
  });
  ctx.jobs
    .schedule({ match: '23 3 * * *', task: BACKUP_TASK, backfillSeconds: 86_400 })
    .schedule({ match: '53 4 * * 0', task: VERIFY_TASK, backfillSeconds: 7 * 86_400 });
}
