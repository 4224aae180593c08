import { defineModule } from '../define-module';
import routes from './donations.routes';
import { campaignCountersVsDonations, donationsVsLedger, donorRowsVsDonations, paidBucketsVsDonations, processorSuccessesVsDonations } from './donations.check';
import { donationSubscribers } from './donations.events';
import { donationWebhooks } from './donations.webhooks';
import { donationsPersonalData } from './donations.personal-data';

export default defineModule({
  name: 'donations',
  personalData: donationsPersonalData,
  routes: [routes],
  subscribers: donationSubscribers,
  webhookHandlers: { ref: 'donation', handlers: donationWebhooks },
  checks: {
    'donation counters': campaignCountersVsDonations,
    'donor rows': donorRowsVsDonations,
    'donations vs ledger': donationsVsLedger,
    'paid gift buckets': paidBucketsVsDonations,
    'processor successes': processorSuccessesVsDonations,
  },
});
