import { defineModule } from '../define-module';
import routes from './webhook-endpoints.routes';
import { registerWebhookEndpointJobs } from './webhook-endpoints.delivery';
import { webhookEndpointSubscribers } from './webhook-endpoints.events';
import { webhookEndpointsPersonalData } from './webhook-endpoints.personal-data';

export default defineModule({
  name: 'webhook-endpoints',
  personalData: webhookEndpointsPersonalData,
  routes: [routes],
  subscribers: webhookEndpointSubscribers,
  jobs: registerWebhookEndpointJobs,
});
