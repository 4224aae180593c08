import { defineModule } from '../define-module';
import routes from './api-keys.routes';

export default defineModule({
  name: 'api-keys',
  routes: [routes],
});
