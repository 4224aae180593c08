import { defineModule } from '../define-module';
import routes from './docs.routes';

export default defineModule({
  name: 'docs',
  routes: [routes],
});
