import { defineModule } from '../define-module';
import routes from './team.routes';

export default defineModule({
  name: 'team',
  routes: [routes],
});
