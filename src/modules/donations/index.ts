/** Donations: paying, settlement from processor events, receipts, recent gifts. Other modules import only from here. */
import type { Db } from '../../db/knex';
import { anyPaidDonation } from './donations.repo';

export { donationWebhooks } from './donations.webhooks';
export { donationSubscribers } from './donations.events';
export { recordSettledGift, type SettledGift } from './donations.offline';
export { campaignCountersVsDonations, donorRowsVsDonations, donationsVsLedger, paidBucketsVsDonations, processorSuccessesVsDonations } from './donations.check';

/**
 * Whether a campaign "has collected money": any gift was ever paid, even if later refunded.
 * Delete and back-to-draft are refused from then on.
 */
export function hasCollectedMoney(db: Db, fundraiserId: string): Promise<boolean> {
  return anyPaidDonation(db, fundraiserId);
}
