import type { Knex } from 'knex';
import { on, type Subscriber } from '../../events';
import type { EventMap } from '../../events';
import * as reads from './referrals.reads';
import * as repo from './referrals.repo';
import { PROFILE_SLUG } from './referrals.service';

type Paid = EventMap['donation.paid'];

/** The donor is the referrer: by account, or a guest paying with the referrer's own address. */
async function selfReferred(trx: Knex.Transaction, referrer: string | null, p: Paid): Promise<boolean> {
  if (!referrer) return false;
  if (referrer === p.donor_user_id) return true;
  if (!p.donor_email) return false;
  return (await reads.userEmail(trx, referrer))?.toLowerCase() === p.donor_email.toLowerCase();
}

/**
 * A gift paid with a `ref`: attributed to that ref (its referrer when it is a profile slug),
 * whoever clicked; the last click on it within the window, if any, gives the channel.
 */
async function attributeByRef(trx: Knex.Transaction, p: Paid, ref: string, at: Date): Promise<void> {
  const slug = ref.toLowerCase();
  const referrer = PROFILE_SLUG.test(slug) ? await reads.userIdBySlug(trx, slug) : null;
  const click = await repo.lastClickOfRef(trx, ref, p.fundraiser_id, at, p.donor_user_id);
  await repo.insertAttribution(trx, {
    donation_id: p.donation_id,
    fundraiser_id: p.fundraiser_id,
    click_id: click?.id ?? null,
    referrer_user_id: referrer,
    channel: click?.channel ?? null,
    via_endorser: referrer ? await reads.endorses(trx, referrer, p.fundraiser_id) : false,
    self_referred: await selfReferred(trx, referrer, p),
    amount_cents: p.amount_cents,
    paid_at: at,
  });
}

/**
 * donation.paid -> the gift is attributed to the `ref` it was paid with, else to the donor's last
 * referral click on that campaign in the 30 days before it settled (last touch; clicks are
 * matched to the paying account, so a guest's gift needs its `ref`). Self-referrals are kept
 * but flagged, and count nowhere. donation.refunded lowers the attributed amount.
 */
export const referralSubscribers: Subscriber[] = [
  on('donation.paid', 'referrals.attribute-gift', async (_ctx, p, trx, meta) => {
    const at = new Date(meta.createdAt);
    if (p.referral_code) return attributeByRef(trx, p, p.referral_code, at);
    if (!p.donor_user_id) return;
    const click = await repo.lastClickBy(trx, p.donor_user_id, p.fundraiser_id, at);
    if (!click) return;
    await repo.insertAttribution(trx, {
      donation_id: p.donation_id,
      fundraiser_id: p.fundraiser_id,
      click_id: click.id,
      referrer_user_id: click.referrer_user_id,
      channel: click.channel,
      via_endorser: click.via_endorser,
      self_referred: await selfReferred(trx, click.referrer_user_id, p),
      amount_cents: p.amount_cents,
      paid_at: at,
    });
  }),
  on('donation.refunded', 'referrals.refund-gift', async (_ctx, p, trx) => {
    await repo.applyRefund(trx, p.donation_id, p.refunded_cents, p.fully);
  }),
];
