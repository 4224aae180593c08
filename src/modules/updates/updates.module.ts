import { defineModule } from '../define-module';
import routes from './updates.routes';
import { registerUpdateJobs } from './updates.jobs';
import { updatesPersonalData } from './updates.personal-data';

export default defineModule({
  name: 'updates',
  publishes: ['update.posted'],
  personalData: updatesPersonalData,
  routes: [routes],
  jobs: registerUpdateJobs,
});
