import { defineModule } from '../define-module';
import { ledgerOwnChecks } from './ledger.check';

/** Listed before the money modules, so check-ledger reports its own checks (groups balance, campaign counters) first. */
export default defineModule({
  name: 'ledger',
  checks: ledgerOwnChecks,
});
