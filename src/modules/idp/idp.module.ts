import { defineModule } from '../define-module';
import routes from './idp.routes';
import { idpPersonalData } from './idp.personal-data';

export default defineModule({
  name: 'idp',
  personalData: idpPersonalData,
  routes: [routes],
});
