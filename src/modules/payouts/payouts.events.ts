import { on } from '../../events';
import { reverseForGift } from './transfer-reversals';
import { transferOnPaid } from './transfers.service';

/**
 * Settled money follows the gift to the holder's connected account when it is active; money a
 * refund or dispute takes back after that comes back from the account.
 */
export const payoutSubscribers = [
  on('donation.paid', 'payouts.transfer-gift', async (ctx, p, trx) => transferOnPaid(ctx, trx, p)),
  on('donation.refunded', 'payouts.reverse-refunded-gift', async (ctx, p, trx) => {
    await reverseForGift(ctx, trx, p);
  }),
  on('donation.disputed', 'payouts.reverse-disputed-gift', async (ctx, p, trx) => {
    await reverseForGift(ctx, trx, p);
  }),
];
