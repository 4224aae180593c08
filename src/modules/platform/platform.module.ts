import { defineModule } from '../define-module';
import routes from './platform.routes';

export default defineModule({
  name: 'platform',
  routes: [routes],
});
