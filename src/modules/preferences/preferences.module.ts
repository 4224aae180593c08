import { defineModule } from '../define-module';
import { NOTIFICATION_MAIL_QUEUE } from '../notifications';
import { sendNotificationMail } from './notification-mail';
import { preferencesRoutes } from './preferences.routes';
import { unsubscribeRoutes } from './unsubscribe.routes';
import { preferencesPersonalData } from './preferences.personal-data';

export default defineModule({
  name: 'preferences',
  personalData: preferencesPersonalData,
  // Over the notification types every module declares (collected by src/modules/index.ts).
  routes: ({ notificationTypes }) => [preferencesRoutes(notificationTypes), unsubscribeRoutes(notificationTypes)],
  // Atomic: the mail's outbox row commits with the job's completion, so each notification mails at most once.
  jobs: (ctx, { notificationTypes }) => ctx.jobs.registerAtomic(NOTIFICATION_MAIL_QUEUE, (p, _job, trx) => sendNotificationMail(ctx, notificationTypes, p, trx)),
});
