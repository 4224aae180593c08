import JSZip from 'jszip';
import type { AppContext } from '../../context';
import { ApiError, notFound } from '../../http/errors';
import { buildDetail, isLang, readable, type FundraiserRow } from '../fundraisers';
import { findProfile } from '../idp';
import { fitted, localImageBytes } from './images';
import { labelsFor, type ShareLang } from './labels';
import { renderPng, type Node } from './render';
import { renderPool } from './render-pool';
import { campaignImage, COVER_BOX, profileImage, SIZES, type CampaignFormat } from './templates';

/** The spec's cache times: campaign images 30 s, the profile image five minutes. */
export const CAMPAIGN_TTL_S = 30;
export const PROFILE_TTL_S = 300;

/** A PNG of the node, drawn in the render pool's worker thread (RENDER_THREADS=0: on this event loop). */
export function renderOffThread(ctx: AppContext, node: Node, width: number, height: number): Promise<Buffer> {
  const threads = ctx.config.RENDER_THREADS;
  return threads > 0 ? renderPool(threads).render(node, width, height) : renderPng(node, width, height);
}

const campaignKey = (format: CampaignFormat, slug: string, lang: ShareLang | undefined) =>
  `share-image:${format}:${slug.toLowerCase()}:${lang ?? '-'}`;

/**
 * A rendered PNG from ctx.cache (Redis when configured, so replicas share it; in-process it is
 * bounded by entries and bytes), else rendered once: concurrent requests for the same image
 * share one render (the cache's single-flight wrap) instead of each starting one.
 */
async function cachedPng(ctx: AppContext, key: string, ttl: number, render: () => Promise<Buffer>): Promise<Buffer> {
  return Buffer.from(await ctx.cache.wrap(key, ttl, async () => (await render()).toString('base64')), 'base64');
}

const hostOf = (url: string) => new URL(url).host;

/** The campaign's image in the guest's view; `lang` undefined = the campaign's own language. */
async function drawCampaign(ctx: AppContext, row: FundraiserRow, lang: ShareLang | undefined, format: CampaignFormat): Promise<Buffer> {
  const chosen = lang ?? ownLang(row);
  const d = await buildDetail(ctx, row, { actor: null, lang: chosen, slugRead: true });
  const cover = await fitted(await localImageBytes(ctx, row.cover_image), COVER_BOX[format], {
    x: row.cover_image_focal_x,
    y: row.cover_image_focal_y,
  });
  const node = campaignImage(
    {
      title: String(d.title),
      category: (d.category_name as string | null) ?? null,
      raisedCents: Number(d.total_raised_cents ?? 0),
      goalCents: Number(row.goal_amount_cents),
      currency: row.currency,
      donors: Number(d.donor_count ?? 0),
      percent: Number(d.percentage_funded ?? 0),
      ended: row.status === 'ended',
      cover,
      host: hostOf(ctx.config.SITE_URL),
    },
    labelsFor(chosen),
    format,
  );
  return renderOffThread(ctx, node, SIZES[format].width, SIZES[format].height);
}

const ownLang = (row: FundraiserRow): ShareLang => (isLang(row.source_language) ? row.source_language : 'en');

/**
 * The campaign in the guest's view when its images may be shown: drafts, private and deleted
 * campaigns are 404 here as on the slug read, and so is a paused one (it takes no gifts, so it is
 * not promoted). Checked on every request, before the cache: a render cached a moment ago must
 * not outlive a change to private, paused or deleted (the cache only saves drawing).
 */
async function shareable(ctx: AppContext, by: { slug: string } | { id: string }): Promise<FundraiserRow> {
  const row = await readable(ctx, null, by);
  if (row.status === 'paused') throw notFound('Fundraiser');
  return row;
}

/** A campaign's link preview, square poster or story card (PNG), at most 30 s old. */
export async function campaignPng(ctx: AppContext, slug: string, lang: ShareLang | undefined, format: CampaignFormat): Promise<Buffer> {
  const row = await shareable(ctx, { slug });
  return cachedPng(ctx, campaignKey(format, slug, lang), CAMPAIGN_TTL_S, () => drawCampaign(ctx, row, lang, format));
}

export const CAMPAIGN_FORMATS: readonly CampaignFormat[] = ['og', 'poster', 'story'];

/**
 * Renders a campaign's three images in its own language ahead of any request (the render job)
 * and stores them where the route looks first, for the spec's 30 s. Returns how many were stored;
 * a campaign guests cannot read stores none.
 */
export async function prerenderCampaign(ctx: AppContext, fundraiserId: string): Promise<number> {
  let row: FundraiserRow;
  try {
    row = await shareable(ctx, { id: fundraiserId });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return 0;
    throw err;
  }
  let stored = 0;
  for (const format of CAMPAIGN_FORMATS) {
    const png = await drawCampaign(ctx, row, undefined, format);
    const value = png.toString('base64');
    // No lang and the campaign's own lang draw the same image, so one render fills both keys.
    for (const key of [campaignKey(format, row.slug, undefined), campaignKey(format, row.slug, ownLang(row))]) {
      await ctx.cache.set(key, value, CAMPAIGN_TTL_S);
      stored += 1;
    }
  }
  return stored;
}

/** The share kit: the three campaign images in one zip (PNGs are compressed already, so stored as they are). */
export async function shareKit(ctx: AppContext, slug: string, lang: ShareLang | undefined): Promise<Buffer> {
  // The first render answers 404 for an unreadable campaign before any other starts.
  const og = await campaignPng(ctx, slug, lang, 'og');
  const [poster, story] = await Promise.all([campaignPng(ctx, slug, lang, 'poster'), campaignPng(ctx, slug, lang, 'story')]);
  const zip = new JSZip();
  const date = new Date('2026-01-01T00:00:00Z'); // fixed, so the same images give the same bytes (and ETag)
  zip.file('og.png', og, { date });
  zip.file('poster.png', poster, { date });
  zip.file('story.png', story, { date });
  return zip.generateAsync({ type: 'nodebuffer', compression: 'STORE' });
}

/**
 * A public profile's share image (PNG); private, missing and inactive accounts are 404. The
 * profile is read on every request, before the cache, so a profile made private (or a banned
 * account) is 404 at once, not when its cached render expires.
 */
export async function profilePng(ctx: AppContext, idOrSlug: string, lang: ShareLang | undefined): Promise<Buffer> {
  const p = await findProfile(ctx.db, idOrSlug);
  if (!p || p.profile_private || p.status !== 'active') throw notFound('Profile');
  // Keyed by the account, not the asked slug: a slug given up and taken by someone else never
  // answers with the former holder's card.
  const key = `share-image:profile:${p.id}:${lang ?? '-'}`;
  return cachedPng(ctx, key, PROFILE_TTL_S, async () => {
    const avatar = await fitted(await localImageBytes(ctx, p.avatar), { width: 260, height: 260 });
    const node = profileImage(
      {
        name: p.name?.trim() || p.profile_slug || 'Member',
        handle: p.profile_slug,
        bio: p.bio?.trim() || null,
        avatar,
        since: new Date(p.created_at),
        host: hostOf(ctx.config.SITE_URL),
      },
      labelsFor(lang ?? 'en'),
    );
    return renderOffThread(ctx, node, SIZES.profile.width, SIZES.profile.height);
  });
}
