import { on, type Subscriber } from '../../events';
import { giftIdentity, rememberDonorKey } from './donor-keys';

/** A settled gift's donor page key exists as soon as its event is handled (the ranking follows on its next rebuild). */
export const leaderboardSubscribers: Subscriber[] = [
  on('donation.paid', 'leaderboard.donor_key', async (_ctx, p, trx) => {
    const who = giftIdentity(p);
    if (who) await rememberDonorKey(trx, who.kind, who.identity);
  }),
];
