import { defineModule } from '../define-module';
import routes from './verification.routes';

export default defineModule({
  name: 'verification',
  routes: [routes],
});
