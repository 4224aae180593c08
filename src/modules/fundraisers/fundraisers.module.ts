import { defineModule } from '../define-module';
import { countersVsLedger } from './fundraisers.check';
import { fundraisersRoutes, type ShareGiftReads } from './fundraisers.routes';
import { fundraisersPersonalData } from './fundraisers.personal-data';

/** The share stats read referrals' counts, and referrals reads fundraisers: src/modules/index.ts passes them in. */
export default (reads: ShareGiftReads) =>
  defineModule({
    name: 'fundraisers',
    publishes: ['fundraiser.published', 'fundraiser.updated'],
    personalData: fundraisersPersonalData,
    routes: [fundraisersRoutes(reads)],
    // The campaigns' counters (raised, gifts) against the ledger's campaign accounts.
    checks: { 'campaign counters': countersVsLedger },
  });
