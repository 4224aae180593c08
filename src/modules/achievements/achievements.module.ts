import { defineModule } from '../define-module';
import routes, { cardShareLimiter } from './achievements.routes';
import { achievementSubscribers } from './achievements.events';
import { achievementsPersonalData } from './achievements.personal-data';

export default defineModule({
  name: 'achievements',
  personalData: achievementsPersonalData,
  routes: [routes],
  subscribers: achievementSubscribers,
  limiters: [cardShareLimiter],
});
