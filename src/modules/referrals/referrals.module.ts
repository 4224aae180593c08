import { defineModule } from '../define-module';
import routes, { referralClicksLimiter } from './referrals.routes';
import { referralSubscribers } from './referrals.events';

export default defineModule({
  name: 'referrals',
  routes: [routes],
  subscribers: referralSubscribers,
  limiters: [referralClicksLimiter],
});
