import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import { latestPublicGifts } from '../donations';
import { buildDetail, readable, type FundraiserRow, type Lang } from '../fundraisers';
import { LATEST_GIFTS, type EmbedCampaign } from './embed.page';

/** A cover stored inline (the campaign schema's data:image URLs, up to 700 KB). */
const INLINE_COVER = /^data:(image\/(?:png|jpeg|webp|gif));base64,([A-Za-z0-9+/=]+)$/;

/**
 * The campaign a guest may read by slug (live, not private, not deleted: the slug read's rule,
 * unlisted campaigns included), or null, so the page answers its 404 without telling which rule refused.
 */
async function readableBySlug(ctx: AppContext, slug: string): Promise<FundraiserRow | null> {
  try {
    return await readable(ctx, null, { slug });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/**
 * Where the page's <img> finds the cover: a URL as stored, or for an inline cover its bytes at
 * /embed/fundraisers/{slug}/cover (the page would otherwise carry up to 700 KB of base64 and
 * break its size budget). The version changes with the campaign, so caches take a new cover.
 */
function coverSrc(row: FundraiserRow): string | null {
  if (!row.cover_image) return null;
  if (!row.cover_image.startsWith('data:')) return row.cover_image;
  if (!INLINE_COVER.test(row.cover_image)) return null;
  return `/embed/fundraisers/${encodeURIComponent(row.slug)}/cover?v=${new Date(row.updated_at).getTime()}`;
}

/** What the widget page shows of a campaign, in `lang` where the campaign has a translation. */
export async function embedCampaign(ctx: AppContext, slug: string, lang: Lang): Promise<EmbedCampaign | null> {
  const row = await readableBySlug(ctx, slug);
  if (!row) return null;
  const [detail, gifts] = await Promise.all([buildDetail(ctx, row, { actor: null, lang, slugRead: true }), latestPublicGifts(ctx.db, row.id, LATEST_GIFTS)]);
  return {
    id: row.id,
    title: String(detail.title),
    status: row.status,
    currency: row.currency,
    cover_image: coverSrc(row),
    goal_amount_cents: Number(detail.goal_amount_cents),
    total_raised_cents: Number(detail.total_raised_cents),
    donor_count: Number(detail.donor_count),
    percentage_funded: Number(detail.percentage_funded),
    // The site's campaign page opens its gift form on `donate=1` (as `endorse=1` opens endorsing).
    donate_url: `${ctx.config.SITE_URL}/fundraisers/${encodeURIComponent(row.slug)}?donate=1`,
    gifts,
  };
}

/** An inline cover's image, for a campaign the page may show; null when there is none to serve. */
export async function inlineCover(ctx: AppContext, slug: string): Promise<{ type: string; bytes: Buffer } | null> {
  const row = await readableBySlug(ctx, slug);
  const inline = row?.cover_image ? INLINE_COVER.exec(row.cover_image) : null;
  return inline ? { type: inline[1]!, bytes: Buffer.from(inline[2]!, 'base64') } : null;
}
