import { defineModule } from '../define-module';
import routes from './dmca.routes';

export default defineModule({
  name: 'dmca',
  routes: [routes],
});
