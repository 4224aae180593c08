import { defineModule } from '../define-module';
import routes from './ambassadors.routes';

export default defineModule({
  name: 'ambassadors',
  routes: [routes],
});
