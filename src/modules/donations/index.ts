/** Donations: paying, settlement from processor events, receipts, recent gifts. Other modules import only from here. */

export { donationWebhooks } from './donations.webhooks';
export { donationSubscribers } from './donations.events';
export { recordSettledGift, type SettledGift } from './donations.offline';
export { campaignCountersVsDonations, donorRowsVsDonations, donationsVsLedger, paidBucketsVsDonations, processorSuccessesVsDonations } from './donations.check';
