import { defineModule } from '../define-module';
import { ledgerOwnChecks } from './ledger.check';

/** Listed before the money modules, so check-ledger reports its own check (groups balance) before theirs. */
export default defineModule({
  name: 'ledger',
  checks: ledgerOwnChecks,
});
