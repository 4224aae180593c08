import { defineModule } from '../define-module';
import routes from './tips.routes';
import { tipLedgerCheck } from './tips.check';
import { tipWebhooks } from './tips.webhooks';
import { tipsPersonalData } from './tips.personal-data';

export default defineModule({
  name: 'tips',
  publishes: ['tip.paid'],
  personalData: tipsPersonalData,
  routes: [routes],
  webhookHandlers: { ref: 'tip', handlers: tipWebhooks },
  checks: { 'platform tips': tipLedgerCheck },
});
