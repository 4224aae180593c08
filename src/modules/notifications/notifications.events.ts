import type { Knex } from 'knex';
import { on, type Subscriber } from '../../events';
import { findById } from '../fundraisers';
import { donationReceivedCopy, goalReachedCopy, payoutPaidCopy } from './notifications.copy';
import { isUuid } from './notifications.reads';
import { notify, recipientLocale } from './notifications.service';

/** The campaign a notification names; none for a malformed id (a payload is data, not a given). */
const fundraiserBrief = async (trx: Knex.Transaction, id: string) => (isUuid(id) ? findById(trx, id) : undefined);

// Each subscriber runs once per event; the dedupe key keeps a retried job from doubling a notification anyway.
export const notificationSubscribers: Subscriber[] = [
  on('donation.paid', 'notifications.donation_received', async (ctx, p, trx) => {
    const campaign = await fundraiserBrief(trx, p.fundraiser_id);
    if (!campaign) return;
    const locale = await recipientLocale(trx, p.holder_user_id);
    const campaign_url = `${ctx.config.SITE_URL}/fundraisers/${encodeURIComponent(campaign.slug)}`;
    const copy = donationReceivedCopy(locale, {
      amount_cents: p.amount_cents,
      currency: p.currency,
      donor_name: p.anonymous ? null : p.donor_name,
      anonymous: p.anonymous,
      campaign_title: campaign.title,
      campaign_url,
    });
    await notify(trx, {
      user_id: p.holder_user_id,
      type: 'donation_received',
      category: 'donation',
      priority: 'high',
      icon: 'heart',
      action_url: campaign_url,
      ...copy,
      metadata: {
        donation_id: p.donation_id,
        fundraiser_id: p.fundraiser_id,
        amount_cents: p.amount_cents,
        currency: p.currency,
        // Never the donor's identity on an anonymous gift.
        ...(p.anonymous ? {} : { donor_name: p.donor_name }),
      },
      dedupe_key: `donation_received:${p.donation_id}`,
    });
  }),
  on('payout.paid', 'notifications.payout_paid', async (ctx, p, trx) => {
    if (!p.holder_user_id) return;
    const locale = await recipientLocale(trx, p.holder_user_id);
    await notify(trx, {
      user_id: p.holder_user_id,
      type: 'payout_paid',
      category: 'payout',
      priority: 'normal',
      icon: 'bank',
      action_url: `${ctx.config.SITE_URL}/dashboard/payouts`,
      ...payoutPaidCopy(locale, p),
      metadata: { payout_id: p.payout_id, amount_cents: p.amount_cents, currency: p.currency },
      dedupe_key: `payout_paid:${p.payout_id}`,
    });
  }),
  on('fundraiser.goal_reached', 'notifications.goal_reached', async (ctx, p, trx) => {
    const campaign = await fundraiserBrief(trx, p.fundraiser_id);
    if (!campaign) return;
    const locale = await recipientLocale(trx, p.holder_user_id);
    const campaign_url = `${ctx.config.SITE_URL}/fundraisers/${encodeURIComponent(campaign.slug)}`;
    await notify(trx, {
      user_id: p.holder_user_id,
      type: 'goal_reached',
      category: 'fundraiser',
      priority: 'high',
      icon: 'trophy',
      action_url: campaign_url,
      ...goalReachedCopy(locale, { campaign_title: campaign.title, campaign_url }),
      metadata: { fundraiser_id: p.fundraiser_id },
      dedupe_key: `goal_reached:${p.fundraiser_id}`,
    });
  }),
];
