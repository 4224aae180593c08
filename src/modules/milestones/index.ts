/** Project milestones (owner writes, public reads with `lang` overlays) and their machine translations. */
import type { AppContext } from '../../context';
import { MILESTONE_TRANSLATION_QUEUE, translateMilestoneJob } from './milestones.service';

export { MILESTONE_TRANSLATION_QUEUE };

/** Machine translations run at-least-once outside a transaction: each write re-checks the milestone under its lock. */
export function registerMilestoneJobs(ctx: AppContext): void {
  ctx.jobs.register(MILESTONE_TRANSLATION_QUEUE, (payload) => translateMilestoneJob(ctx, String(payload.milestone_id)));
}
