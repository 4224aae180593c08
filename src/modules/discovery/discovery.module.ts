import { defineModule } from '../define-module';
import routes from './discovery.routes';

export default defineModule({
  name: 'discovery',
  routes: [routes],
});
