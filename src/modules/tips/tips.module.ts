import { defineModule } from '../define-module';
import routes from './tips.routes';
import { tipLedgerCheck } from './tips.check';
import { tipWebhooks } from './tips.webhooks';

export default defineModule({
  name: 'tips',
  routes: [routes],
  webhookHandlers: { ref: 'tip', handlers: tipWebhooks },
  checks: { 'platform tips': tipLedgerCheck },
});
