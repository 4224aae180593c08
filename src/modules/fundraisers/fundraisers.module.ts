import { defineModule } from '../define-module';
import { refreshRankingCopy } from './counters';
import { countersVsLedger } from './fundraisers.check';
import { fundraisersRoutes, type ShareGiftReads } from './fundraisers.routes';
import { fundraisersPersonalData } from './fundraisers.personal-data';

export const RANKING_TASK = 'fundraisers.ranking-copy';

/** The share stats read referrals' counts, and referrals reads fundraisers: src/modules/index.ts passes them in. */
export default (reads: ShareGiftReads) =>
  defineModule({
    name: 'fundraisers',
    publishes: ['fundraiser.published', 'fundraiser.updated'],
    personalData: fundraisersPersonalData,
    routes: [fundraisersRoutes(reads)],
    // The "most raised" ordering reads the fundraisers columns, a copy of the shards' sums (counters.ts).
    jobs: (ctx) => {
      ctx.jobs.register(RANKING_TASK, async () => {
        await refreshRankingCopy(ctx.db);
      });
      ctx.jobs.schedule({ match: '* * * * *', task: RANKING_TASK, backfillSeconds: 0 });
    },
    // The campaigns' counters (raised, gifts) against the ledger's campaign accounts.
    checks: { 'campaign counters': countersVsLedger },
  });
