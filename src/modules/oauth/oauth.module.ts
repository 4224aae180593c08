import { defineModule } from '../define-module';
import routes from './oauth.routes';

export default defineModule({
  name: 'oauth',
  routes: [routes],
});
