import { defineModule } from '../define-module';
import routes from './leaderboard.routes';
import { leaderboardSubscribers } from './leaderboard.events';
import { registerLeaderboardJobs } from './leaderboard.jobs';

export default defineModule({
  name: 'leaderboard',
  routes: [routes],
  subscribers: leaderboardSubscribers,
  jobs: registerLeaderboardJobs,
});
