import { on, type Subscriber } from '../../events';
import { escapeHtml } from '../../integrations/mail/templates';
import type { Locale } from '../../integrations/mail';
import { notify, recipientLocale } from '../notifications';
import * as repo from './follows.repo';
import { activeUser } from './follows.service';

const NEW_FOLLOWER: Record<Locale, { title: string; label: string; body: (name: string) => string; someone: string }> = {
  en: { title: 'New follower', label: 'View profile', body: (n) => `${n} started following you.`, someone: 'Someone' },
  ru: { title: 'Новый подписчик', label: 'Открыть профиль', body: (n) => `${n} подписался(-ась) на вас.`, someone: 'Кто-то' },
  uk: { title: 'Новий підписник', label: 'Відкрити профіль', body: (n) => `${n} підписався(-лася) на вас.`, someone: 'Хтось' },
  es: { title: 'Nuevo seguidor', label: 'Ver perfil', body: (n) => `${n} ha empezado a seguirte.`, someone: 'Alguien' },
};

export const followSubscribers: Subscriber[] = [
  // Once per follower and followed user: unfollowing and following again notifies nobody twice.
  on('follow.created', 'follows.new_follower', async (ctx, p, trx) => {
    if (p.following_type !== 'user') return;
    const follower = await activeUser(trx, p.follower_id);
    if (!follower) return;
    const locale = await recipientLocale(trx, p.following_id);
    const w = NEW_FOLLOWER[locale];
    const profile_url = `${ctx.config.SITE_URL}/profiles/${encodeURIComponent(follower.profile_slug ?? follower.id)}`;
    await notify(trx, {
      user_id: p.following_id,
      type: 'new_follower',
      category: 'social',
      priority: 'low',
      icon: 'user-plus',
      title: w.title,
      message: w.body(`<strong>${escapeHtml(follower.name?.trim() || w.someone)}</strong>`),
      action_url: profile_url,
      action_label: w.label,
      metadata: { follower_id: follower.id },
      dedupe_key: `new_follower:${p.follower_id}:${p.following_id}`,
    });
  }),
  // A blocked user cannot follow the blocker: a follow that was active ends with the block.
  on('user.blocked', 'follows.end_on_block', async (_ctx, p, trx) => {
    await repo.endActive(trx, p.blocked_id, 'user', p.blocker_id);
  }),
];
