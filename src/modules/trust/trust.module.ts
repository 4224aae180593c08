import { defineModule } from '../define-module';
import routes from './trust.routes';

export default defineModule({
  name: 'trust',
  routes: [routes],
});
