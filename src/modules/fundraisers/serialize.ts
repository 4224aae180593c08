import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { userProfile } from '../idp';
import * as repo from './fundraisers.repo';
import { categoryName } from './categories.reads';
import type { FundraiserRow } from './fundraisers.repo';
import { langOr, type Lang } from './fundraisers.schemas';
import { sanitizeStory } from './story-html';
import { totalsOf } from './totals';
import { trustStatusFor } from './trust-status';
import { toIsoDate } from './dates';

// The gate formats dates too; a leaf module keeps publish-gate -> serialize -> trust-status -> publish-gate from looping.
export { toIsoDate };

const iso = (v: Date | string | null | undefined) => (v ? new Date(v).toISOString() : null);

/** Public when live (active, paused, ended), not private and not deleted. */
export function isPubliclyReadable(row: FundraiserRow): boolean {
  return ['active', 'paused', 'ended'].includes(row.status) && row.visibility !== 'private' && !row.deleted_at;
}

export function isOwner(row: FundraiserRow, actor: Actor | null): boolean {
  return !!actor && actor.userId === row.owner_user_id;
}

/** Visibility rule of the spec: everyone but the owner gets 404 for unpublished/private/deleted. */
export function canRead(row: FundraiserRow, actor: Actor | null): boolean {
  return isPubliclyReadable(row) || isOwner(row, actor);
}

export function percentageFunded(raised: number, goal: number): number {
  if (!goal || goal <= 0) return 0;
  return Math.round((raised / goal) * 10_000) / 100;
}

/** The fields every detail read shares (the {id} read's shape before owner-only fields). */
export function baseDetail(row: FundraiserRow) {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    summary: row.summary,
    story_html: row.story_html,
    goal_amount_cents: Number(row.goal_amount_cents),
    currency: row.currency,
    status: row.status,
    visibility: row.visibility,
    type: row.type,
    is_project: row.is_project,
    category: row.category_id === null ? null : String(row.category_id),
    tags: row.tags,
    cover_image: row.cover_image,
    cover_image_focal_x: row.cover_image_focal_x,
    cover_image_focal_y: row.cover_image_focal_y,
    images: row.images,
    video_url: row.video_url,
    location: row.location,
    beneficiary_name: row.beneficiary_name,
    owner_user_id: row.owner_user_id,
    org_id: row.org_id,
    donor_count: Number(row.donor_count),
    source_language: langOr(row.source_language),
    end_date: toIsoDate(row.end_date),
    approved_at: iso(row.approved_at),
    goal_reached_at: iso(row.goal_reached_at),
    cover_tint: row.cover_tint,
    donations_last_24h: 0,
  };
}

export interface DetailOptions {
  actor: Actor | null;
  lang?: Lang;
  /** The slug read adds the slug-only fields and a live donor count. */
  slugRead: boolean;
  /** Owner-only fields (beneficiary_contact, trustStatus); staff views also use this. */
  includePrivate?: boolean;
}

/** The detail read of the spec's table, for a row the caller may read. */
export async function buildDetail(
  ctx: AppContext,
  row: FundraiserRow,
  opts: DetailOptions,
  /** Prefetched by repo.readDetail (the hot reads: one round trip); fetched here when absent. */
  prefetched?: repo.DetailExtras,
): Promise<Record<string, unknown>> {
  const owner = opts.includePrivate ?? isOwner(row, opts.actor);
  const lang = opts.lang ?? langOr(row.source_language);
  const extras: repo.DetailExtras = prefetched ?? (await fetchExtras(ctx, row, opts, lang));
  const { totals } = extras;
  const out: Record<string, unknown> = { ...baseDetail(row), donations_last_24h: totals.donations_last_24h };
  const t = extras.translation;
  if (t && opts.lang && opts.lang !== row.source_language) {
    if (t.title) out.title = t.title;
    if (t.summary) out.summary = t.summary;
    // Translations come from other writers (machine translation); sanitise again on the way out.
    if (t.story_html) out.story_html = sanitizeStory(t.story_html);
  }
  if (opts.slugRead) {
    const profile = extras.profile;
    out.total_raised_cents = totals.total_raised_cents;
    out.category_name = extras.category_name;
    out.profiles = profile
      ? { name: profile.name, avatar: profile.avatar, email_verified: profile.email_verified, profile_slug: profile.profile_slug }
      : null;
    out.donor_count = totals.donor_count; // live on the slug read
    out.donation_count = totals.donation_count;
    out.percentage_funded = percentageFunded(totals.total_raised_cents, Number(row.goal_amount_cents));
    out.shares_count = Number(row.shares_count);
    out.outcome_report = row.outcome_report ?? null;
  }
  if (owner) {
    out.beneficiary_contact = row.beneficiary_contact;
    out.trustStatus = await trustStatusFor(ctx, row);
  }
  return out;
}

/** The extras for a row not read through repo.readDetail (create and update answers). */
async function fetchExtras(ctx: AppContext, row: FundraiserRow, opts: DetailOptions, lang: Lang): Promise<repo.DetailExtras> {
  const wantsTr = !!opts.lang && opts.lang !== row.source_language;
  const [totals, translation, category_name, profile] = await Promise.all([
    totalsOf(ctx.db, row.id),
    wantsTr ? repo.translation(ctx.db, row.id, opts.lang!) : undefined,
    opts.slugRead ? categoryName(ctx.db, row.category_id, lang) : null,
    opts.slugRead ? userProfile(ctx.db, row.owner_user_id) : undefined,
  ]);
  return { totals, translation: translation ?? null, category_name, profile: profile ?? null };
}
