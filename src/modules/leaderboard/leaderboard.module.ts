import { defineModule } from '../define-module';
import routes from './leaderboard.routes';
import { leaderboardSubscribers } from './leaderboard.events';
import { registerLeaderboardJobs } from './leaderboard.jobs';
import { leaderboardPersonalData } from './leaderboard.personal-data';

export default defineModule({
  name: 'leaderboard',
  routes: [routes],
  subscribers: leaderboardSubscribers,
  jobs: registerLeaderboardJobs,
  personalData: leaderboardPersonalData,
});
