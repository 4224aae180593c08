import { defineModule } from '../define-module';
import routes from './api-keys.routes';
import { apiKeysPersonalData } from './api-keys.personal-data';

export default defineModule({
  name: 'api-keys',
  personalData: apiKeysPersonalData,
  routes: [routes],
});
