import { defineModule } from '../define-module';
import { pruneJournal } from '../donations';
import { REPLAY_MAX_AGE_MS } from './live.routes';
import routes from './live.routes';

export const PRUNE_TASK = 'live.prune';

/** Live progress of a campaign over server-sent events (docs/integrators/live-stream.md). */
export default defineModule({
  name: 'live',
  routes: [routes],
  jobs: (ctx) => {
    // The journal is only read back for reconnects inside the replay window; keep a margin.
    ctx.jobs.register(PRUNE_TASK, async () => void (await pruneJournal(ctx.db, 2 * REPLAY_MAX_AGE_MS)));
    ctx.jobs.schedule({ match: '*/5 * * * *', task: PRUNE_TASK, backfillSeconds: 0 });
  },
});
