import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import { latestPublicGifts } from '../donations';
import { buildDetail, readable, type Lang } from '../fundraisers';
import { LATEST_GIFTS, type EmbedCampaign } from './embed.page';

/**
 * A campaign as a guest may read it by slug (live, not private, not deleted: the slug read's
 * rule, unlisted campaigns included), in `lang` where it has a translation; null otherwise, so
 * the page can answer its 404 without telling which rule refused.
 */
export async function embedCampaign(ctx: AppContext, slug: string, lang: Lang): Promise<EmbedCampaign | null> {
  let row;
  try {
    row = await readable(ctx, null, { slug });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
  const [detail, gifts] = await Promise.all([buildDetail(ctx, row, { actor: null, lang, slugRead: true }), latestPublicGifts(ctx.db, row.id, LATEST_GIFTS)]);
  return {
    id: row.id,
    title: String(detail.title),
    status: row.status,
    currency: row.currency,
    cover_image: (detail.cover_image as string | null) ?? null,
    goal_amount_cents: Number(detail.goal_amount_cents),
    total_raised_cents: Number(detail.total_raised_cents),
    donor_count: Number(detail.donor_count),
    percentage_funded: Number(detail.percentage_funded),
    // The site's campaign page opens its gift form on `donate=1` (as `endorse=1` opens endorsing).
    donate_url: `${ctx.config.SITE_URL}/fundraisers/${encodeURIComponent(row.slug)}?donate=1`,
    gifts,
  };
}
