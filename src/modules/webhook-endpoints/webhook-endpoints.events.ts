import type { Knex } from 'knex';
import { on, type EventMeta } from '../../events';
import { findById } from '../fundraisers';
import { processorAccountOwner } from './webhook-endpoints.reads';
import * as repo from './webhook-endpoints.repo';
import type { Owner } from './webhook-endpoints.repo';
import { queueDelivery } from './webhook-endpoints.delivery';

/**
 * An endpoint receives the events of the campaigns its owner holds (its own, or its
 * organization's) and that owner's payouts (docs/decisions/0017-outbound-webhooks.md). Each subscriber records one
 * delivery per subscribed endpoint in the event's transaction; sending happens in delivery jobs.
 */
async function fanOut(trx: Knex.Transaction, owner: Owner | null, meta: EventMeta, data: Record<string, unknown>): Promise<void> {
  if (!owner) return;
  for (const ep of await repo.subscribedEndpoints(trx, owner, meta.type)) {
    await queueDelivery(trx, ep.id, meta.eventId, meta.type, new Date(meta.createdAt), data);
  }
}

/** Who holds a campaign: its organization, else its owner. */
async function campaignHolder(trx: Knex.Transaction, fundraiserId: string): Promise<Owner | null> {
  const f = await findById(trx, fundraiserId);
  if (!f) return null;
  return f.org_id ? { kind: 'organization', id: f.org_id } : { kind: 'user', id: f.owner_user_id };
}

const NAME = 'webhook-endpoints.fan-out.';

export const webhookEndpointSubscribers = [
  on('donation.paid', `${NAME}donation-paid`, async (_ctx, p, trx, meta) => {
    // What a partner may see of a gift: no email, no processor id; no name when anonymous.
    const data = {
      donation_id: p.donation_id,
      fundraiser_id: p.fundraiser_id,
      amount_cents: p.amount_cents,
      tip_cents: p.tip_cents,
      currency: p.currency,
      donor_name: p.anonymous ? null : p.donor_name,
      message: p.message ?? null,
      paid_at: p.paid_at ?? new Date(meta.createdAt).toISOString(),
    };
    await fanOut(trx, await campaignHolder(trx, p.fundraiser_id), meta, data);
  }),
  on('donation.refunded', `${NAME}donation-refunded`, async (_ctx, p, trx, meta) => {
    const data = { donation_id: p.donation_id, fundraiser_id: p.fundraiser_id, refunded_cents: p.refunded_cents, fully: p.fully };
    await fanOut(trx, await campaignHolder(trx, p.fundraiser_id), meta, data);
  }),
  on('fundraiser.published', `${NAME}fundraiser-published`, async (_ctx, p, trx, meta) => {
    await fanOut(trx, await campaignHolder(trx, p.fundraiser_id), meta, { fundraiser_id: p.fundraiser_id });
  }),
  on('fundraiser.goal_reached', `${NAME}fundraiser-goal-reached`, async (_ctx, p, trx, meta) => {
    await fanOut(trx, await campaignHolder(trx, p.fundraiser_id), meta, { fundraiser_id: p.fundraiser_id });
  }),
  on('comment.created', `${NAME}comment-created`, async (_ctx, p, trx, meta) => {
    const data = { comment_id: p.comment_id, fundraiser_id: p.fundraiser_id, parent_id: p.parent_id, author_user_id: p.author_user_id, created_at: p.created_at };
    await fanOut(trx, await campaignHolder(trx, p.fundraiser_id), meta, data);
  }),
  on('update.posted', `${NAME}update-posted`, async (_ctx, p, trx, meta) => {
    await fanOut(trx, await campaignHolder(trx, p.fundraiser_id), meta, { update_id: p.update_id, fundraiser_id: p.fundraiser_id, created_at: p.created_at });
  }),
  on('recurring_gift.started', `${NAME}recurring-gift-started`, async (_ctx, p, trx, meta) => {
    // As for gifts: no email, no processor id, no name when anonymous.
    const data = {
      recurring_gift_id: p.recurring_gift_id,
      fundraiser_id: p.fundraiser_id,
      amount_cents: p.amount_cents,
      tip_cents: p.tip_cents,
      currency: p.currency,
      interval: 'month',
      donor_name: p.anonymous ? null : p.donor_name,
      started_at: p.started_at,
    };
    await fanOut(trx, await campaignHolder(trx, p.fundraiser_id), meta, data);
  }),
  on('recurring_gift.canceled', `${NAME}recurring-gift-canceled`, async (_ctx, p, trx, meta) => {
    const data = { recurring_gift_id: p.recurring_gift_id, fundraiser_id: p.fundraiser_id, canceled_by: p.canceled_by, canceled_at: p.canceled_at };
    await fanOut(trx, await campaignHolder(trx, p.fundraiser_id), meta, data);
  }),
  on('payout.paid', `${NAME}payout-paid`, async (_ctx, p, trx, meta) => {
    const data = { payout_id: p.payout_id, amount_cents: p.amount_cents, currency: p.currency };
    await fanOut(trx, await processorAccountOwner(trx, p.processor_account_id), meta, data);
  }),
  on('payout.failed', `${NAME}payout-failed`, async (_ctx, p, trx, meta) => {
    const data = { payout_id: p.payout_id, amount_cents: p.amount_cents, currency: p.currency };
    await fanOut(trx, await processorAccountOwner(trx, p.processor_account_id), meta, data);
  }),
];
