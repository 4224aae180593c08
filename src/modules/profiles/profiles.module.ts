import { defineModule } from '../define-module';
import routes from './profiles.routes';

export default defineModule({
  name: 'profiles',
  routes: [routes],
});
