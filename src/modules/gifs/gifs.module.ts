import { defineModule } from '../define-module';
import routes from './gifs.routes';

export default defineModule({
  name: 'gifs',
  routes: [routes],
});
