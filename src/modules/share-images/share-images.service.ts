import JSZip from 'jszip';
import type { AppContext } from '../../context';
import { notFound } from '../../http/errors';
import { buildDetail, isLang, readable } from '../fundraisers';
import { findProfile } from '../idp';
import { fitted, localImageBytes } from './images';
import { labelsFor, type ShareLang } from './labels';
import { renderPng } from './render';
import { campaignImage, COVER_BOX, profileImage, SIZES, type CampaignFormat } from './templates';

/** The spec's cache times: campaign images 30 s, the profile image five minutes. */
export const CAMPAIGN_TTL_S = 30;
export const PROFILE_TTL_S = 300;

const inFlight = new Map<string, Promise<Buffer>>();

/**
 * A rendered PNG from ctx.cache (Redis when configured, so replicas share it), else rendered
 * once: concurrent requests for the same image wait for one render instead of each starting one.
 */
async function cachedPng(ctx: AppContext, key: string, ttl: number, render: () => Promise<Buffer>): Promise<Buffer> {
  const hit = await ctx.cache.get<string>(key);
  if (hit !== undefined) return Buffer.from(hit, 'base64');
  let running = inFlight.get(key);
  if (!running) {
    running = render()
      .then(async (png) => {
        await ctx.cache.set(key, png.toString('base64'), ttl);
        return png;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, running);
  }
  return running;
}

const hostOf = (url: string) => new URL(url).host;

async function renderCampaign(ctx: AppContext, slug: string, lang: ShareLang | undefined, format: CampaignFormat): Promise<Buffer> {
  // The guest's view: drafts, private and deleted campaigns are 404 here as on the slug read.
  const row = await readable(ctx, null, { slug });
  const chosen: ShareLang = lang ?? (isLang(row.source_language) ? row.source_language : 'en');
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
  return renderPng(node, SIZES[format].width, SIZES[format].height);
}

/** A campaign's link preview, square poster or story card (PNG), at most 30 s old. */
export function campaignPng(ctx: AppContext, slug: string, lang: ShareLang | undefined, format: CampaignFormat): Promise<Buffer> {
  const key = `share-image:${format}:${slug.toLowerCase()}:${lang ?? '-'}`;
  return cachedPng(ctx, key, CAMPAIGN_TTL_S, () => renderCampaign(ctx, slug, lang, format));
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

/** A public profile's share image (PNG); private, missing and inactive accounts are 404. */
export function profilePng(ctx: AppContext, idOrSlug: string, lang: ShareLang | undefined): Promise<Buffer> {
  const key = `share-image:profile:${idOrSlug.toLowerCase()}:${lang ?? '-'}`;
  return cachedPng(ctx, key, PROFILE_TTL_S, async () => {
    const p = await findProfile(ctx.db, idOrSlug);
    if (!p || p.profile_private || p.status !== 'active') throw notFound('Profile');
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
    return renderPng(node, SIZES.profile.width, SIZES.profile.height);
  });
}
