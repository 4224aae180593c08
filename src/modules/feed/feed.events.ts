import { on, type Subscriber } from '../../events';
import { escapeHtml } from '../../integrations/mail/templates';
import type { Locale } from '../../integrations/mail';
import { notify, recipientLocale } from '../notifications';
import { recipients } from './feed.connections.reads';
import { updateBrief } from './feed.updates.reads';

type Words = { title: string; label: string; titled: (c: string, t: string) => string; untitled: (c: string) => string };

const CAMPAIGN_UPDATE: Record<Locale, Words> = {
  en: { title: 'New campaign update', label: 'Read the update', titled: (c, t) => `${c} posted an update: ${t}`, untitled: (c) => `${c} posted a new update.` },
  ru: { title: 'Новости кампании', label: 'Читать', titled: (c, t) => `${c}: новая запись — ${t}`, untitled: (c) => `${c}: новая запись.` },
  uk: { title: 'Новини кампанії', label: 'Читати', titled: (c, t) => `${c}: новий допис — ${t}`, untitled: (c) => `${c}: новий допис.` },
  es: { title: 'Nueva actualización de la campaña', label: 'Leer la actualización', titled: (c, t) => `${c} publicó una actualización: ${t}`, untitled: (c) => `${c} publicó una nueva actualización.` },
};

export const feedSubscribers: Subscriber[] = [
  // The update already reaches connected feeds by the feed's own query; this adds the notification,
  // once per update and recipient.
  on('update.posted', 'feed.campaign_update', async (ctx, p, trx) => {
    const u = await updateBrief(trx, p.update_id);
    if (!u) return;
    const campaign_url = `${ctx.config.SITE_URL}/fundraisers/${encodeURIComponent(u.slug)}`;
    const action_url = `${campaign_url}?update=${encodeURIComponent(u.id)}`;
    for (const userId of await recipients(trx, p.update_id)) {
      const w = CAMPAIGN_UPDATE[await recipientLocale(trx, userId)];
      const campaign = `<a href="${escapeHtml(campaign_url)}">${escapeHtml(u.fundraiser_title)}</a>`;
      await notify(trx, {
        user_id: userId,
        type: 'campaign_update',
        category: 'update',
        priority: 'normal',
        icon: 'megaphone',
        title: w.title,
        message: u.title ? w.titled(campaign, `<strong>${escapeHtml(u.title)}</strong>`) : w.untitled(campaign),
        action_url,
        action_label: w.label,
        metadata: { update_id: u.id, fundraiser_id: u.fundraiser_id },
        dedupe_key: `campaign_update:${u.id}:${userId}`,
      });
    }
  }),
];
