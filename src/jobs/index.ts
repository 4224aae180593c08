import type { AppContext } from '../context';
import { MAIL_QUEUE, sendQueuedMail } from '../integrations/mail';
import { COVER_TINT_QUEUE, coverTintHandler } from './cover-tint';
import { registerSubscribers } from '../events';
import { registerPayoutJobs } from '../modules/payouts';
import { registerLeaderboardJobs } from '../modules/leaderboard';
import { subscribers } from '../modules/subscribers';
import { registerSandboxJobs } from '../integrations/payments';
import { NOTIFICATION_MAIL_QUEUE } from '../modules/notifications';
import { sendNotificationMail } from '../modules/preferences';
import { registerUpdateJobs } from '../modules/updates';
import { registerMilestoneJobs } from '../modules/milestones';
import { registerShareImageJobs } from '../modules/share-images';
import { registerWebhookEndpointJobs } from '../modules/webhook-endpoints';
import { registerCrontab } from './crontab';

/** Registers every queue's handler on the context's worker. Modules add their queues here. */
export function registerJobs(ctx: AppContext): void {
  ctx.jobs.register(MAIL_QUEUE, (p, job) => sendQueuedMail(ctx, p, job));
  ctx.jobs.register(COVER_TINT_QUEUE, coverTintHandler(ctx));
  if (ctx.payments.name === 'sandbox') registerSandboxJobs(ctx.jobs, ctx);
  registerPayoutJobs(ctx);
  registerLeaderboardJobs(ctx);
  registerUpdateJobs(ctx);
  registerMilestoneJobs(ctx);
  registerShareImageJobs(ctx);
  registerWebhookEndpointJobs(ctx);
  registerSubscribers(ctx, subscribers);
  registerCrontab(ctx);
  // Atomic: the mail's outbox row commits with the job's completion, so each notification mails at most once.
  ctx.jobs.registerAtomic(NOTIFICATION_MAIL_QUEUE, (p, _job, trx) => sendNotificationMail(ctx, p, trx));
}
