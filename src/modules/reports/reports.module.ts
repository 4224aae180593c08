import { defineModule } from '../define-module';
import routes from './reports.routes';
import { reportsPersonalData } from './reports.personal-data';

export default defineModule({
  name: 'reports',
  personalData: reportsPersonalData,
  routes: [routes],
});
