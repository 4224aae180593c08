import { defineModule } from '../define-module';
import { fundraisersRoutes, type ShareGiftReads } from './fundraisers.routes';

/** The share stats read referrals' counts, and referrals reads fundraisers: src/modules/index.ts passes them in. */
export default (reads: ShareGiftReads) =>
  defineModule({
    name: 'fundraisers',
    routes: [fundraisersRoutes(reads)],
  });
