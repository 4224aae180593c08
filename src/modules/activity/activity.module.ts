import { defineModule } from '../define-module';
import routes, { presenceLimiter } from './activity.routes';

export default defineModule({
  name: 'activity',
  routes: [routes],
  limiters: [presenceLimiter],
});
