import { defineModule } from '../define-module';
import { auditPersonalData } from './audit.personal-data';

/** The audit log: a library other modules write to (recordAudit); nothing to mount. */
export default defineModule({
  name: 'audit',
  personalData: auditPersonalData,
});
