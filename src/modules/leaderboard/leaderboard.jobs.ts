import type { AppContext } from '../../context';
import { REFRESH_QUEUE, refreshLeaderboard } from './leaderboard.service';

export function registerLeaderboardJobs(ctx: AppContext): void {
  ctx.jobs.register(REFRESH_QUEUE, async () => refreshLeaderboard(ctx.db));
}
