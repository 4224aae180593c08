import type { Response } from 'express';
import type { AppContext } from '../../context';
import { searchCampaigns, type FundraiserCard } from '../discovery';
import type { Lang } from '../fundraisers';
import * as reads from './search.reads';
import type { Scope } from './search.schemas';

export const Q_MIN = 2;
const Q_MAX = 200;
/** Matching a guest donor's name takes a run of 3 letters or digits, so short or symbol-only text cannot list donors. */
const DONOR_NAME_RUN = /[\p{L}\p{N}]{3}/u;

export interface SearchResult {
  data: { campaigns: FundraiserCard[]; users: reads.UserHit[]; orgs: reads.OrgHit[]; donors: reads.DonorHit[] };
  query: string;
}

export function normaliseQ(raw: string | string[] | undefined): string {
  const first = Array.isArray(raw) ? raw[0] : raw;
  return (first ?? '').replace(/\0/g, '').replace(/\s+/g, ' ').trim().slice(0, Q_MAX);
}

/**
 * One search across the scopes asked for; every list pages by the same limit and offset. Donor
 * rows come only with the first page (offset 0), and only when q holds 3 consecutive letters or
 * digits. Campaigns go through the list read's search gate (503 on overload).
 */
export async function search(
  ctx: AppContext,
  res: Response,
  o: { q: string; scope: Scope; limit: number; offset: number; lang: Lang | null },
): Promise<SearchResult> {
  const empty: SearchResult = { data: { campaigns: [], users: [], orgs: [], donors: [] }, query: o.q };
  if ([...o.q].length < Q_MIN) return empty;
  const wants = (s: Scope) => o.scope === 'all' || o.scope === s;
  const none = Promise.resolve([] as never[]);
  const [campaigns, users, orgs, donors] = await Promise.all([
    wants('campaigns') ? searchCampaigns(ctx, res, { q: o.q, lang: o.lang, limit: o.limit, offset: o.offset }).then((r) => r.data) : none,
    wants('users') ? reads.users(ctx.db, o.q, o.limit, o.offset) : none,
    wants('orgs') ? reads.orgs(ctx.db, o.q, o.limit, o.offset) : none,
    wants('donors') && o.offset === 0 && DONOR_NAME_RUN.test(o.q) ? reads.guestDonors(ctx.db, o.q, o.limit) : none,
  ]);
  return { data: { campaigns, users, orgs, donors }, query: o.q };
}
