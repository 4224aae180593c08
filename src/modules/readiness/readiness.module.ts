import { defineModule } from '../define-module';
import routes from './readiness.routes';

export default defineModule({
  name: 'readiness',
  routes: [routes],
});
