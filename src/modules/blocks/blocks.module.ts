import { defineModule } from '../define-module';
import routes from './blocks.routes';

export default defineModule({
  name: 'blocks',
  routes: [routes],
});
