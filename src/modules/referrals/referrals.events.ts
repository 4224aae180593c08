import { on, type Subscriber } from '../../events';
import * as repo from './referrals.repo';

/**
 * donation.paid -> the gift is attributed to the donor's last referral click on that campaign in
 * the 30 days before it settled (last touch). Clicks are matched to the paying account, so
 * only signed-in donors' gifts can be attributed: a guest's gift carries nothing that ties it to a
 * click (see the README). donation.refunded lowers the attributed amount.
 */
export const referralSubscribers: Subscriber[] = [
  on('donation.paid', 'referrals.attribute-gift', async (_ctx, p, trx, meta) => {
    if (!p.donor_user_id) return;
    const at = new Date(meta.createdAt);
    const click = await repo.lastClickBy(trx, p.donor_user_id, p.fundraiser_id, at);
    if (!click) return;
    await repo.insertAttribution(trx, {
      donation_id: p.donation_id,
      fundraiser_id: p.fundraiser_id,
      click_id: click.id,
      referrer_user_id: click.referrer_user_id,
      channel: click.channel,
      via_endorser: click.via_endorser,
      self_referred: click.referrer_user_id === p.donor_user_id,
      amount_cents: p.amount_cents,
      paid_at: at,
    });
  }),
  on('donation.refunded', 'referrals.refund-gift', async (_ctx, p, trx) => {
    await repo.applyRefund(trx, p.donation_id, p.refunded_cents, p.fully);
  }),
];
