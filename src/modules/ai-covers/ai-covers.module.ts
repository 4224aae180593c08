import { defineModule } from '../define-module';
import routes, { aiImageDailyLimiter, aiImageHourlyLimiter } from './ai-covers.routes';

export default defineModule({
  name: 'ai-covers',
  routes: [routes],
  limiters: [aiImageHourlyLimiter, aiImageDailyLimiter],
});
