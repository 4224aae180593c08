import { defineModule } from '../define-module';
import routes from './share-images.routes';
import { shareImageSubscribers } from './share-images.events';
import { registerShareImageJobs } from './share-images.jobs';

export default defineModule({
  name: 'share-images',
  routes: [routes],
  subscribers: shareImageSubscribers,
  jobs: registerShareImageJobs,
});
