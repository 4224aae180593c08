import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { enqueue } from '../../infra/jobs';
import { prerenderCampaign } from './share-images.service';

export const SHARE_IMAGES_QUEUE = 'share-images.render';
/**
 * Changes within this window share one render: a popular campaign's stream of gifts renders its
 * images once per few seconds, not once per gift.
 */
export const RENDER_DEBOUNCE_S = 5;

/** Asks for the campaign's share images to be drawn again soon (one pending job per campaign). */
export function scheduleShareImages(trx: Knex | Knex.Transaction, fundraiserId: string): Promise<void> {
  return enqueue(trx, SHARE_IMAGES_QUEUE, { fundraiser_id: fundraiserId }, {
    singletonKey: fundraiserId,
    runAt: new Date(Date.now() + RENDER_DEBOUNCE_S * 1000),
    maxAttempts: 3,
  });
}

/** At-least-once and idempotent: a repeated run stores the same, current images again. */
export function registerShareImageJobs(ctx: AppContext): void {
  ctx.jobs.register(SHARE_IMAGES_QUEUE, async (payload) => {
    const id = String(payload.fundraiser_id ?? '');
    if (id) await prerenderCampaign(ctx, id);
  });
}
