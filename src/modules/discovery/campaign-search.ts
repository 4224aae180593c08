import type { Response } from 'express';
import type { AppContext } from '../../context';
import type { Lang } from '../fundraisers';
import { toCard } from './card';
import { parseQ } from './discovery.params';
import * as reads from './discovery.reads';
import { boundedSearch } from './search-limit';

export type FundraiserCard = ReturnType<typeof toCard>;

/**
 * The list read's ranked campaign search (GET /fundraisers?q=) for other reads such as /search:
 * public active or ended campaigns, full text then the trigram fallback, run through the same
 * per-process search gate (503 SEARCH_BUSY / SEARCH_TIMEOUT with Retry-After on overload).
 */
export async function searchCampaigns(
  ctx: AppContext,
  res: Response,
  opts: { q: string; lang: Lang | null; limit: number; offset: number },
): Promise<{ data: FundraiserCard[]; total: number }> {
  const q = parseQ(opts.q);
  if (!q) return { data: [], total: 0 };
  const filter: reads.ListFilter = {
    status: 'all',
    categoryIds: null,
    q,
    projects: null,
    sort: 'newest',
    lang: opts.lang,
    limit: opts.limit,
    offset: opts.offset,
    near: null,
  };
  const { rows, total } = await boundedSearch(ctx, res, (trx) => reads.listCards(trx, filter));
  return { data: rows.map(toCard), total };
}
