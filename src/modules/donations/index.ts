/** Donations: paying, settlement from processor events, receipts, recent gifts. Other modules import only from here. */

export { recordSettledGift, type SettledGift } from './donations.offline';
export { settledGiftCount } from './donations.counts';
export { journalGiftsAfter, journalHead, publicGift, pruneJournal, type JournalGift, type PublicGift } from './public-gifts';
export { latestPublicGifts } from './latest-gifts';
