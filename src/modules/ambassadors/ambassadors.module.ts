import { defineModule } from '../define-module';
import routes from './ambassadors.routes';
import { ambassadorsPersonalData } from './ambassadors.personal-data';

export default defineModule({
  name: 'ambassadors',
  personalData: ambassadorsPersonalData,
  routes: [routes],
});
