import { on, type Subscriber } from '../../events';
import type { Locale } from '../../integrations/mail';
import { escapeHtml } from '../../integrations/mail/templates';
import { isBlocked } from '../blocks';
import { findById } from '../fundraisers';
import { notify, recipientLocale } from '../notifications';
import { organizationHolderUserId } from '../organizations';
import { findOne } from './comments.reads';

interface Words {
  title: string;
  reply_title: string;
  label: string;
  someone: string;
  on: (who: string, campaign: string) => string;
  replied: (who: string, campaign: string) => string;
}

const COMMENT: Record<Locale, Words> = {
  en: {
    title: 'New comment', reply_title: 'New reply to your comment', label: 'View comment', someone: 'Someone',
    on: (w, c) => `${w} commented on ${c}`, replied: (w, c) => `${w} replied to your comment on ${c}`,
  },
  ru: {
    title: 'Новый комментарий', reply_title: 'Новый ответ на ваш комментарий', label: 'Открыть комментарий', someone: 'Кто-то',
    on: (w, c) => `${w} прокомментировал(-а) ${c}`, replied: (w, c) => `${w} ответил(-а) на ваш комментарий к ${c}`,
  },
  uk: {
    title: 'Новий коментар', reply_title: 'Нова відповідь на ваш коментар', label: 'Відкрити коментар', someone: 'Хтось',
    on: (w, c) => `${w} прокоментував(-ла) ${c}`, replied: (w, c) => `${w} відповів(-ла) на ваш коментар до ${c}`,
  },
  es: {
    title: 'Nuevo comentario', reply_title: 'Nueva respuesta a tu comentario', label: 'Ver comentario', someone: 'Alguien',
    on: (w, c) => `${w} ha comentado en ${c}`, replied: (w, c) => `${w} ha respondido a tu comentario en ${c}`,
  },
};

const EXCERPT = 140;
const excerpt = (body: string) => (body.length > EXCERPT ? `${body.slice(0, EXCERPT - 1)}…` : body);

export const commentSubscribers: Subscriber[] = [
  // comment_received: to the campaign's holder (an organization's campaign: its owner, as for
  // gifts) and, on a reply, to the parent comment's author; never to the commenter, once each,
  // and not to a parent author who blocked the commenter (they no longer see their comments).
  on('comment.created', 'comments.comment_received', async (ctx, p, trx) => {
    const c = await findOne(trx, p.comment_id, null);
    const campaign = await findById(trx, p.fundraiser_id);
    if (!c || !campaign || campaign.deleted_at) return;
    const holder = (campaign.org_id && (await organizationHolderUserId(trx, campaign.org_id))) || campaign.owner_user_id;
    const parent = p.parent_id ? await findOne(trx, p.parent_id, null) : undefined;
    const recipients: Array<{ user_id: string; reply: boolean }> = [];
    if (parent && parent.user_id !== p.author_user_id && !(await isBlocked(trx, parent.user_id, p.author_user_id))) {
      recipients.push({ user_id: parent.user_id, reply: true });
    }
    if (holder !== p.author_user_id && !recipients.some((r) => r.user_id === holder)) recipients.push({ user_id: holder, reply: false });
    const url = `${ctx.config.SITE_URL}/fundraisers/${encodeURIComponent(campaign.slug)}#comment-${c.id}`;
    for (const r of recipients) {
      const w = COMMENT[await recipientLocale(trx, r.user_id)];
      const who = `<strong>${escapeHtml(c.author_name?.trim() || w.someone)}</strong>`;
      const where = `<strong>${escapeHtml(campaign.title)}</strong>`;
      const said = c.body ? `: “${escapeHtml(excerpt(c.body))}”` : '.';
      await notify(trx, {
        user_id: r.user_id,
        type: 'comment_received',
        category: 'social',
        priority: 'normal',
        icon: 'message-circle',
        title: r.reply ? w.reply_title : w.title,
        message: (r.reply ? w.replied(who, where) : w.on(who, where)) + said,
        action_url: url,
        action_label: w.label,
        metadata: { comment_id: c.id, fundraiser_id: campaign.id, parent_id: p.parent_id, author_id: p.author_user_id },
        dedupe_key: `comment_received:${c.id}:${r.user_id}`,
      });
    }
  }),
];
