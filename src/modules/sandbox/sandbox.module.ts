import { defineModule } from '../define-module';
import routes from './sandbox.routes';

/** Mounted only while STRIPE_SECRET_KEY is unset (docs/decisions/0008-sandbox-processor.md): src/modules/index.ts modulesFor adds it. */
export default defineModule({
  name: 'sandbox',
  routes: [routes],
});
