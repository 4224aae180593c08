import { defineModule } from '../define-module';
import routes from './features.routes';

export default defineModule({
  name: 'features',
  routes: [routes],
});
