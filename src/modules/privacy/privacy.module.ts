import { defineModule } from '../define-module';
import { ERASE_TASK, IDP_DELETE_TASK, REMOVE_FILES_TASK, removeFiles, runErasure } from './privacy.erasure';
import { LOG_ERASURE_TASK, writeErasureRecord } from './privacy.erasure-log';
import { buildExport, EXPORT_TASK, failExport } from './privacy.exports';
import { guestRoutes, meRoutes, privacyRequestLimiter } from './privacy.routes';

/**
 * Privacy (docs/decisions/0009-erasure-pseudonymises-money.md): orchestrates exports and erasures over every module's declared
 * `personalData` part (collected by src/modules/index.ts); it writes only its own tables.
 */
export default defineModule({
  name: 'privacy',
  routes: ({ personalData }) => [meRoutes(personalData), guestRoutes(personalData)],
  limiters: [privacyRequestLimiter],
  jobs: (ctx, { personalData }) => {
    ctx.jobs.register(EXPORT_TASK, async (p, job) => {
      try {
        await buildExport(ctx, personalData, String(p.export_id));
      } catch (err) {
        if (job.attempts >= job.maxAttempts) await failExport(ctx, String(p.export_id));
        throw err;
      }
    });
    ctx.jobs.register(ERASE_TASK, async (p) => {
      await runErasure(ctx, personalData, String(p.user_id));
    });
    ctx.jobs.register(REMOVE_FILES_TASK, (p) => removeFiles(ctx, (p.keys as string[]) ?? []));
    ctx.jobs.register(IDP_DELETE_TASK, (p) => ctx.idp.deleteUser(String(p.sub)));
    ctx.jobs.register(LOG_ERASURE_TASK, (p) => writeErasureRecord(ctx, String(p.key), p.record));
  },
});
