import { defineModule } from '../define-module';
import routes from './webhook-endpoints.routes';
import { registerWebhookEndpointJobs } from './webhook-endpoints.delivery';
import { webhookEndpointSubscribers } from './webhook-endpoints.events';

export default defineModule({
  name: 'webhook-endpoints',
  routes: [routes],
  subscribers: webhookEndpointSubscribers,
  jobs: registerWebhookEndpointJobs,
});
