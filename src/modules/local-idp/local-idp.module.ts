import { defineModule } from '../define-module';
import routes from './local-idp.routes';

export default defineModule({
  name: 'local-idp',
  routes: [routes],
});
