import { defineModule } from '../define-module';
import routes from './search.routes';

export default defineModule({
  name: 'search',
  routes: [routes],
});
