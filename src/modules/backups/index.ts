/** Logical backups and verified restores of the service's database. Other code imports only from here. */
export { backupDir, listArchives, pruneArchives } from './archives';
export { recordRun, lastSuccesses, type BackupMethod, type BackupRun } from './backups.repo';
export {
  BackupError,
  checkRestoredDatabase,
  dailyBackup,
  resolveArchive,
  restoreArchive,
  takeBackup,
  verifyLatestArchive,
  type BackupConfig,
  type RestoredCheck,
  type RestoredReport,
  type Verified,
} from './backups.service';
export { describeBackup, pgBackRestOf, recordNewestBackup, verifyLatestBackup, type PgBackRestConfig, type VerifiedBackup } from './pgbackrest.service';
