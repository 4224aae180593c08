import { on, type Subscriber } from '../../events';
import { scheduleShareImages } from './share-images.jobs';

/** What a campaign's share images show changed: draw them again (debounced) in the job worker. */
export const shareImageSubscribers: Subscriber[] = [
  on('fundraiser.published', 'share-images.on-published', (_ctx, p, trx) => scheduleShareImages(trx, p.fundraiser_id)),
  on('fundraiser.updated', 'share-images.on-updated', (_ctx, p, trx) => scheduleShareImages(trx, p.fundraiser_id)),
  on('donation.paid', 'share-images.on-donation-paid', (_ctx, p, trx) => scheduleShareImages(trx, p.fundraiser_id)),
  on('donation.refunded', 'share-images.on-donation-refunded', (_ctx, p, trx) => scheduleShareImages(trx, p.fundraiser_id)),
];
