import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context';
import { sha256Hex } from '../../infra/hash';
import { recentAchievements } from '../achievements';
import type { Lang } from '../fundraisers';
import * as reads from './activity.reads';
import * as repo from './activity.repo';
import type { ActivityItem } from './activity.schemas';

/** The spec's home-activity cache: 15 s, on the server as in shared caches. */
export const HOME_ACTIVITY_TTL_SECONDS = 15;

const named = (r: reads.Named) => ({ id: r.fundraiser_id, title: r.title, slug: r.slug });
const iso = (d: Date) => new Date(d).toISOString();

/**
 * The public homepage feed: the newest `limit` events across gifts, referral clicks, visits
 * through shared links, people viewing a campaign now and campaigns entering review (named
 * never) and achievements earned (from the achievements module: only those the public may see).
 * Each source yields at most `limit` rows, so the merged top `limit` is exact.
 */
export async function homeActivity(ctx: AppContext, lang: Lang, limit: number): Promise<ActivityItem[]> {
  return ctx.cache.wrap(`activity:home:${lang}:${limit}`, HOME_ACTIVITY_TTL_SECONDS, async () => {
    const db = ctx.db;
    const [gifts, clicks, views, viewing, submitted, achievements] = await Promise.all([
      reads.recentGifts(db, lang, limit),
      reads.recentClicks(db, lang, limit),
      reads.recentReferralViews(db, lang, limit),
      reads.viewingNow(db, lang, limit),
      reads.recentSubmissions(db, limit),
      recentAchievements(db, lang, limit),
    ]);
    const items: ActivityItem[] = [
      ...gifts.map((g) => ({
        kind: 'gift' as const,
        at: iso(g.at),
        fundraiser: named(g),
        amount_cents: Number(g.amount_cents),
        currency: g.currency,
        donor_name: g.donor_name,
      })),
      ...clicks.map((c) => ({ kind: 'referral_click' as const, at: iso(c.at), fundraiser: named(c) })),
      ...views.map((v) => ({ kind: 'referral_view' as const, at: iso(v.at), fundraiser: named(v), count: v.count })),
      ...viewing.map((v) => ({ kind: 'viewing_now' as const, at: iso(v.at), fundraiser: named(v), count: v.count })),
      ...submitted.map((at) => ({ kind: 'submitted_for_review' as const, at: iso(at), fundraiser: null })),
      ...achievements,
    ];
    // ISO strings in UTC sort as their instants; kind breaks ties so the order is stable.
    items.sort((a, b) => (a.at === b.at ? a.kind.localeCompare(b.kind) : a.at < b.at ? 1 : -1));
    return items.slice(0, limit);
  });
}

/** A fresh visitor id for a browser that has none (same alphabet as the site's). */
export const newVisitorId = (): string => randomBytes(16).toString('base64url');

/**
 * Records that a visitor has the campaign open. Only a hash of campaign and visitor is stored,
 * so the table can neither reveal the visitor id nor link one visitor across campaigns.
 */
export async function recordPresence(ctx: AppContext, fundraiserId: string, visitorId: string): Promise<void> {
  await repo.touchPresence(ctx.db, fundraiserId, sha256Hex(`presence:${fundraiserId}:${visitorId}`));
  // Cheap housekeeping on about one ping in a hundred keeps the table to the last hour's visitors.
  if (Math.random() < 0.01) await repo.prunePresence(ctx.db);
}
