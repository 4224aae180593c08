import { defineModule } from '../define-module';
import routes from './donations.routes';
import { campaignCountersVsDonations, donationsVsLedger, donorRowsVsDonations, paidBucketsVsDonations, processorSuccessesVsDonations } from './donations.check';
import { donationSubscribers } from './donations.events';
import { donationWebhooks } from './donations.webhooks';
import { donationsPersonalData } from './donations.personal-data';
import { recurringDonorCounts, recurringGiftsHaveInvoices } from './recurring/recurring.check';
import { SYNC_QUEUE } from './recurring/recurring.changes';
import { recurringSubscribers } from './recurring/recurring.events';
import { guestRecurringRoutes, meRecurringRoutes } from './recurring/recurring.routes';
import { syncJob } from './recurring/recurring.service';

declare module '../notifications/notification-types' {
  interface NotificationTypeRegistry {
    recurring_gift_started: true;
  }
}

export default defineModule({
  name: 'donations',
  publishes: ['donation.paid', 'donation.refunded', 'donation.disputed', 'fundraiser.goal_reached', 'recurring_gift.started', 'recurring_gift.canceled', 'recurring_gift.payment_failed'],
  personalData: donationsPersonalData,
  routes: [routes, meRecurringRoutes, guestRecurringRoutes],
  subscribers: [...donationSubscribers, ...recurringSubscribers],
  jobs: (ctx) => ctx.jobs.register(SYNC_QUEUE, (payload) => syncJob(ctx, payload)),
  notificationTypes: {
    recurring_gift_started: {
      order: 15,
      labels: { en: 'new monthly donors', ru: 'новых ежемесячных донорах', uk: 'нових щомісячних донорів', es: 'nuevos donantes mensuales' },
    },
  },
  webhookHandlers: { ref: 'donation', handlers: donationWebhooks },
  checks: {
    'donation counters': campaignCountersVsDonations,
    'donor rows': donorRowsVsDonations,
    'donations vs ledger': donationsVsLedger,
    'paid gift buckets': paidBucketsVsDonations,
    'processor successes': processorSuccessesVsDonations,
    'recurring donor counts': recurringDonorCounts,
    'monthly gift invoices': recurringGiftsHaveInvoices,
  },
});
