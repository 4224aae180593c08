import { defineModule } from '../define-module';
import routes from './oauth.routes';
import { oauthPersonalData } from './oauth.personal-data';

export default defineModule({
  name: 'oauth',
  personalData: oauthPersonalData,
  routes: [routes],
});
