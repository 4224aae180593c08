import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Db } from '../../db/knex';
import type { Actor } from '../../http/actor';
import { notFound } from '../../http/errors';
import { canRead, findById } from '../fundraisers';
import { findProfile, type ProfileRow } from '../idp';
import { achievementLabel, type AchievementKind, type AchievementLang } from './achievements.labels';
import { accountVisible, achievementsOpenTo, cardOpenTo, seesHidden } from './achievements.policy';
import { recentPublic } from './achievements.reads';
import * as repo from './achievements.repo';

/** 12 random bytes: a 16-character code nobody can guess or derive from the user or the kind. */
export const newCardCode = (): string => randomBytes(12).toString('base64url');
export const CARD_CODE = /^[A-Za-z0-9_-]{16}$/;

export interface EarnOptions {
  fundraiserId?: string | null;
  /** False for an achievement that would reveal an anonymous gift. */
  public?: boolean;
  at: Date;
}

/** Awards `kind` to the user unless they hold it already (at most once per user and kind). */
export function earn(trx: Knex.Transaction, userId: string, kind: AchievementKind, o: EarnOptions): Promise<boolean> {
  return repo.insertOnce(trx, {
    user_id: userId,
    kind,
    code: newCardCode(),
    fundraiser_id: o.fundraiserId ?? null,
    public: o.public ?? true,
    earned_at: o.at,
  });
}

const entry = (a: repo.AchievementRow, lang: AchievementLang) => ({
  code: a.code,
  kind: a.kind,
  label: achievementLabel(a.kind, lang),
  earned_at: new Date(a.earned_at).toISOString(),
});

/** GET /users/{id}/achievements: 404 for unknown and (to others) inactive accounts; a private profile lists none to others. */
export async function listForUser(db: Db, actor: Actor | null, userId: string, lang: AchievementLang) {
  const p = await findProfile(db, userId);
  if (!accountVisible(p, actor)) throw notFound('User');
  if (!achievementsOpenTo(p, actor)) return { data: [] };
  const rows = await repo.listForUser(db, p.id, seesHidden(p, actor));
  return { data: rows.map((a) => entry(a, lang)) };
}

export interface Card {
  row: repo.AchievementRow;
  earner: ProfileRow;
  fundraiser: { id: string; title: string; slug: string } | null;
}

/** A card as `actor` may see it (null = a guest, as the images see it); 404 when not theirs to see. */
export async function loadCard(db: Db, actor: Actor | null, code: string): Promise<Card> {
  const row = await repo.findByCode(db, code);
  const earner = row ? await findProfile(db, row.user_id) : undefined;
  if (!row || !earner || !cardOpenTo(row, earner, actor)) throw notFound('Achievement');
  const f = row.fundraiser_id ? await findById(db, row.fundraiser_id) : undefined;
  // Only a campaign the guest may read is named, whoever asks: the card is made to be shared.
  const fundraiser = f && canRead(f, null) ? { id: f.id, title: f.title, slug: f.slug } : null;
  return { row, earner, fundraiser };
}

export const earnerName = (p: ProfileRow): string => p.name?.trim() || p.profile_slug || 'Member';

/** GET /achievements/{code}: the card with its page, share images and QR code. */
export async function readCard(ctx: AppContext, actor: Actor | null, code: string, lang: AchievementLang) {
  const c = await loadCard(ctx.db, actor, code);
  const images = `${ctx.config.BASE_URL}/cards/${encodeURIComponent(code)}`;
  return {
    data: {
      ...entry(c.row, lang),
      user: { id: c.earner.id, name: earnerName(c.earner), avatar: c.earner.avatar, profile_slug: c.earner.profile_slug },
      fundraiser: c.fundraiser,
      url: cardPageUrl(ctx, code),
      images: {
        og: `${images}/share/og.png`,
        square: `${images}/share/square.png`,
        story: `${images}/share/story.png`,
        qr: `${images}/qr.svg`,
      },
    },
  };
}

/** The card's public page on the site (what the QR code opens). */
export const cardPageUrl = (ctx: Pick<AppContext, 'config'>, code: string): string =>
  `${ctx.config.SITE_URL}/cards/${encodeURIComponent(code)}`;

/** Home-feed items: the newest achievements the public may see (see achievements.reads.ts). */
export async function recentAchievements(db: Db, lang: AchievementLang, limit: number) {
  const rows = await recentPublic(db, lang, limit);
  return rows.map((r) => ({
    kind: 'achievement' as const,
    at: new Date(r.at).toISOString(),
    fundraiser: r.fundraiser_id ? { id: r.fundraiser_id, title: String(r.title), slug: String(r.slug) } : null,
    achievement: { code: r.code, label: achievementLabel(r.kind, lang) },
  }));
}
