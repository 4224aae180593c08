import { defineModule } from '../define-module';
import routes from './reports.routes';

export default defineModule({
  name: 'reports',
  routes: [routes],
});
