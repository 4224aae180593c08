import { defineModule } from '../define-module';
import routes from './idp.routes';

export default defineModule({
  name: 'idp',
  routes: [routes],
});
