import type { Knex } from 'knex';
import { on, type Subscriber } from '../../../events';
import { queueComposedMail, toLocale, type Locale } from '../../../integrations/mail';
import { escapeHtml } from '../../../integrations/mail/templates';
import { findById as findFundraiser, lockForCounters } from '../../fundraisers';
import { notify, recipientLocale } from '../../notifications';
import { formatMoney } from '../donations.mail';
import { giftCanceled } from './recurring.changes';
import { giftCanceledMail, renewalFailedMail } from './recurring.mail';
import * as rrepo from './recurring.repo';
import { manageUrl } from './recurring.tokens';

/** Why a campaign no longer takes monthly gifts (docs/decisions/0020-monthly-gifts-are-gifts.md: ended, deleted, made private, rejected), or null while it does. */
function closedReason(f: { status: string; visibility: string; deleted_at: Date | null } | undefined): string | null {
  if (!f || f.deleted_at) return 'campaign_deleted';
  if (f.status === 'ended') return 'campaign_ended';
  if (f.status === 'rejected') return 'campaign_rejected';
  if (f.status === 'draft') return 'campaign_unpublished';
  if (f.visibility === 'private') return 'campaign_private';
  return null;
}

/** Cancels every open monthly gift of a campaign that closed, at once (the processor learns it by the sync job). */
async function cancelForClosedCampaign(trx: Knex.Transaction, fundraiserId: string): Promise<void> {
  const reason = closedReason(await findFundraiser(trx, fundraiserId));
  if (!reason) return;
  await lockForCounters(trx, fundraiserId);
  for (const g of await rrepo.openForCampaign(trx, fundraiserId)) {
    const locked = await rrepo.find(trx, g.id, true);
    if (locked) await giftCanceled(trx, locked, { by: 'campaign', reason, syncNow: true });
  }
}

const STARTED: Record<Locale, { title: string; body: (amount: string, who: string, campaign: string) => string; someone: string; label: string }> = {
  en: { title: 'New monthly donor', body: (a, w, c) => `${w} now gives ${a} every month to ${c}.`, someone: 'Someone', label: 'View campaign' },
  ru: { title: 'Новый ежемесячный донор', body: (a, w, c) => `${w} теперь жертвует ${a} каждый месяц в сбор ${c}.`, someone: 'Кто-то', label: 'Открыть сбор' },
  uk: { title: 'Новий щомісячний донор', body: (a, w, c) => `${w} тепер жертвує ${a} щомісяця на збір ${c}.`, someone: 'Хтось', label: 'Відкрити збір' },
  es: { title: 'Nuevo donante mensual', body: (a, w, c) => `${w} ahora dona ${a} cada mes a ${c}.`, someone: 'Alguien', label: 'Ver campaña' },
};

export const recurringSubscribers: Subscriber[] = [
  on('fundraiser.updated', 'donations.recurring-campaign-closed', async (_ctx, p, trx) => {
    if (p.fields.some((f) => f === 'status' || f === 'visibility' || f === 'deleted_at')) await cancelForClosedCampaign(trx, p.fundraiser_id);
  }),
  on('recurring_gift.started', 'donations.recurring_gift_started', async (ctx, p, trx) => {
    const campaign = await findFundraiser(trx, p.fundraiser_id);
    if (!campaign) return;
    const locale = toLocale(await recipientLocale(trx, p.holder_user_id));
    const w = STARTED[locale];
    const url = `${ctx.config.SITE_URL}/fundraisers/${encodeURIComponent(campaign.slug)}`;
    const who = p.anonymous ? w.someone : escapeHtml(p.donor_name?.trim() || w.someone);
    await notify(trx, {
      user_id: p.holder_user_id,
      type: 'recurring_gift_started',
      category: 'donation',
      priority: 'normal',
      icon: 'repeat',
      action_url: url,
      title: w.title,
      message: w.body(`<strong>${escapeHtml(formatMoney(p.amount_cents, p.currency, locale))}</strong>`, who, `<a href="${escapeHtml(url)}">${escapeHtml(campaign.title)}</a>`),
      action_label: w.label,
      metadata: { recurring_gift_id: p.recurring_gift_id, fundraiser_id: p.fundraiser_id, amount_cents: p.amount_cents, currency: p.currency, ...(p.anonymous ? {} : { donor_name: p.donor_name }) },
      dedupe_key: `recurring_gift_started:${p.recurring_gift_id}`,
    });
  }),
  on('recurring_gift.canceled', 'donations.recurring-canceled-mail', async (_ctx, p, trx) => {
    if (p.canceled_by !== 'campaign' && p.canceled_by !== 'processor') return;
    const g = await rrepo.find(trx, p.recurring_gift_id);
    const f = g && (await findFundraiser(trx, g.fundraiser_id));
    if (!g?.donor_email || !f) return;
    await queueComposedMail(trx, giftCanceledMail({ to: g.donor_email, locale: g.locale, campaign: f.title, by: p.canceled_by }));
  }),
  on('recurring_gift.payment_failed', 'donations.recurring-failed-mail', async (ctx, p, trx) => {
    const g = await rrepo.find(trx, p.recurring_gift_id);
    const f = g && (await findFundraiser(trx, g.fundraiser_id));
    if (!g?.donor_email || !f || g.status === 'canceled') return;
    const updateUrl = p.update_url ?? `${await manageUrl(trx, ctx.config.SITE_URL, g.id)}&update_card=1`;
    await queueComposedMail(trx, renewalFailedMail({ to: g.donor_email, locale: g.locale, campaign: f.title, amount_cents: g.amount_cents + g.tip_cents, currency: g.currency, updateUrl }));
  }),
];
