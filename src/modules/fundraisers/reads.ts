import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { notFound } from '../../http/errors';
import * as repo from './fundraisers.repo';
import type { FundraiserRow } from './fundraisers.repo';
import { canRead } from './serialize';

/** A campaign the caller may read (visibility rules), else 404. */
export async function readable(ctx: AppContext, actor: Actor | null, by: { id: string } | { slug: string }): Promise<FundraiserRow> {
  const row = 'id' in by ? await repo.findById(ctx.db, by.id) : await repo.findBySlug(ctx.db, by.slug);
  if (!row || !canRead(row, actor)) throw notFound('Fundraiser');
  return row;
}
