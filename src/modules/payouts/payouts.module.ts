import { defineModule } from '../define-module';
import orgPayouts from './org-payouts.routes';
import { payoutLedgerCheck } from './payouts.check';
import { payoutSubscribers } from './payouts.events';
import { registerPayoutJobs } from './payouts.jobs';
import payouts, { payoutRefreshLimiter } from './payouts.routes';
import { payoutWebhookHandlers } from './payouts.webhooks';
import processorAccounts from './processor-accounts.routes';
import { payoutsPersonalData } from './payouts.personal-data';

export default defineModule({
  name: 'payouts',
  publishes: ['payout.paid', 'payout.failed'],
  personalData: payoutsPersonalData,
  routes: [payouts, processorAccounts, orgPayouts],
  subscribers: payoutSubscribers,
  jobs: registerPayoutJobs,
  // Connected accounts and their payouts carry no payment kind; no other module handles their events.
  webhookHandlers: { ref: null, handlers: payoutWebhookHandlers },
  checks: { 'connected accounts and payouts': payoutLedgerCheck },
  limiters: [payoutRefreshLimiter],
});
