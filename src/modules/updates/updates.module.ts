import { defineModule } from '../define-module';
import routes from './updates.routes';
import { registerUpdateJobs } from './updates.jobs';

export default defineModule({
  name: 'updates',
  routes: [routes],
  jobs: registerUpdateJobs,
});
