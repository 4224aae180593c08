import { defineModule } from '../define-module';

/** The credential resolver, built by context.ts; nothing to mount. */
export default defineModule({
  name: 'auth',
});
