import { on } from '../../events';
import { transferOnPaid } from './transfers.service';

/** Settled money follows the gift to the holder's connected account when it is active. */
export const payoutSubscribers = [
  on('donation.paid', 'payouts.transfer-gift', async (ctx, p, trx) => transferOnPaid(ctx, trx, p)),
];
