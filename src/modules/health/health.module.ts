import { defineModule } from '../define-module';
import routes from './health.routes';

export default defineModule({
  name: 'health',
  routes: [routes],
});
