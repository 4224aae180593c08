import { defineModule } from '../define-module';
import { webhookRoutes } from './webhooks.routes';

export default defineModule({
  name: 'webhooks',
  // Over every money module's handlers (collected by src/modules/index.ts), so this module imports none of them.
  routes: ({ webhookHandlers }) => [webhookRoutes(webhookHandlers)],
});
