import { defineModule } from '../define-module';
import routes from './donor-reads.routes';

export default defineModule({
  name: 'donor-reads',
  routes: [routes],
});
