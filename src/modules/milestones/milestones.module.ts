import { defineModule } from '../define-module';
import routes from './milestones.routes';
import { MILESTONE_TRANSLATION_QUEUE, translateMilestoneJob } from './milestones.service';

export default defineModule({
  name: 'milestones',
  routes: [routes],
  // Machine translations run at-least-once outside a transaction: each write re-checks the milestone under its lock.
  jobs: (ctx) => ctx.jobs.register(MILESTONE_TRANSLATION_QUEUE, (payload) => translateMilestoneJob(ctx, String(payload.milestone_id))),
});
