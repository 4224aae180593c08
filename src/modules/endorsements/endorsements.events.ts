import { on, type Subscriber } from '../../events';
import { toLocale } from '../../integrations/mail';
import { findById } from '../fundraisers';
import { userProfile } from '../idp';
import { notify } from '../notifications';
import { endorsementReceivedCopy } from './endorsements.copy';

/** The holder hears of each endorser once: the dedupe key survives a withdraw and a second endorsement. */
export const endorsementSubscribers: Subscriber[] = [
  on('endorsement.created', 'endorsements.endorsement_received', async (ctx, p, trx) => {
    // One connection per transaction: these reads run one after another.
    const campaign = await findById(trx, p.fundraiser_id);
    const endorser = await userProfile(trx, p.endorser_user_id);
    const holder = await userProfile(trx, p.holder_user_id);
    if (!campaign || !holder) return;
    const locale = toLocale(holder.locale);
    const campaign_url = `${ctx.config.SITE_URL}/fundraisers/${encodeURIComponent(campaign.slug)}`;
    await notify(trx, {
      user_id: p.holder_user_id,
      type: 'endorsement_received',
      category: 'endorsement',
      priority: 'normal',
      icon: 'thumbs-up',
      action_url: campaign_url,
      ...endorsementReceivedCopy(locale, { endorser: endorser?.name ?? null, campaign_title: campaign.title, campaign_url }),
      metadata: { fundraiser_id: p.fundraiser_id, endorser_user_id: p.endorser_user_id, message: p.message },
      dedupe_key: `endorsement_received:${p.fundraiser_id}:${p.endorser_user_id}`,
    });
  }),
];
