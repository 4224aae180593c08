import { defineModule } from '../define-module';
import routes, { referralClicksLimiter } from './referrals.routes';
import { referralSubscribers } from './referrals.events';
import { referralsPersonalData } from './referrals.personal-data';

export default defineModule({
  name: 'referrals',
  personalData: referralsPersonalData,
  routes: [routes],
  subscribers: referralSubscribers,
  limiters: [referralClicksLimiter],
});
