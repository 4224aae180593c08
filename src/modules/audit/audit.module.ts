import { defineModule } from '../define-module';

/** The audit log: a library other modules write to (recordAudit); nothing to mount. */
export default defineModule({
  name: 'audit',
});
