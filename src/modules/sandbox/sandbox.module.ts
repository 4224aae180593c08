import { defineModule } from '../define-module';
import routes from './sandbox.routes';

/** Mounted only while STRIPE_SECRET_KEY is unset (decisions.md): src/modules/index.ts modulesFor adds it. */
export default defineModule({
  name: 'sandbox',
  routes: [routes],
});
