import { on, type Subscriber } from '../../events';
import { queueComposedMail } from '../../integrations/mail';
import { joinCampaign } from '../fundraisers';
import { receiptMail } from './donations.mail';
import { monthlyReceiptExtras } from './recurring/recurring.mail';
import { manageUrl } from './recurring/recurring.tokens';

/**
 * donation.paid -> the donor's receipt mail, queued in the subscriber's own exactly-once
 * transaction. The holder's `donation_received` notification is the notifications module's.
 */
export const donationSubscribers: Subscriber[] = [
  on('donation.paid', 'donations.receipt-mail', async (ctx, p, trx) => {
    if (!p.donor_email) return;
    const row = await joinCampaign(trx('donations as d'), 'f', 'd.fundraiser_id')
      .where('d.id', p.donation_id)
      .first('d.locale', 'f.title', 'd.recurring_gift_id');
    if (!row) return;
    const mail = receiptMail(ctx.config.SITE_URL, {
        to: p.donor_email,
        locale: row.locale,
        campaign: row.title,
        amount_cents: p.amount_cents,
        tip_cents: p.tip_cents,
        currency: p.currency,
        receipt_id: p.receipt_id,
      });
    // Each receipt of a monthly gift carries the signed link that lets a guest donor change or stop it.
    if (row.recurring_gift_id) {
      const extras = monthlyReceiptExtras(row.locale, await manageUrl(trx, ctx.config.SITE_URL, row.recurring_gift_id));
      mail.paragraphs.push(extras.paragraph);
      mail.links = [...(mail.links ?? []), extras.link];
    }
    await queueComposedMail(trx, mail);
  }),
];
