import { observeBackups } from '../../infra/metrics';
import { defineModule } from '../define-module';
import { lastSuccesses } from './backups.repo';

observeBackups(lastSuccesses);

/**
 * Backups of the service's database (docs/operations/backups.md). Its work is the operator's
 * commands and the worker's schedule (src/jobs/backups.ts, which passes check-ledger in);
 * here it owns backup_runs, which every process's /metrics reads.
 */
export default defineModule({
  name: 'backups',
});
