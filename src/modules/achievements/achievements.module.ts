import { defineModule } from '../define-module';
import routes, { cardShareLimiter } from './achievements.routes';
import { achievementSubscribers } from './achievements.events';

export default defineModule({
  name: 'achievements',
  routes: [routes],
  subscribers: achievementSubscribers,
  limiters: [cardShareLimiter],
});
