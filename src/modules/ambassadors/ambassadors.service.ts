import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { badRequest } from '../../http/errors';
import { plainText } from '../../infra/plain-text';
import { drivenTotals } from '../referrals';
import { withMoney } from './ambassadors.reads';
import * as repo from './ambassadors.repo';
import { IMPACT_RAIL_MAX } from './ambassadors.schemas';
import type { z } from 'zod';
import type { applicationBody } from './ambassadors.schemas';

/** The impact rail: at most 100 ambassadors, largest impact (raised + given + driven) first. */
export async function impactRail(ctx: AppContext) {
  const rows = await withMoney(ctx.db);
  const driven = await drivenTotals(ctx.db, { userIds: rows.map((r) => r.id) });
  const ranked = rows
    .map((r) => {
      const driven_cents = driven.get(r.id) ?? 0;
      return {
        id: r.id,
        name: r.name,
        slug: r.slug,
        avatar: r.avatar,
        raised_cents: r.raised_cents,
        given_cents: r.given_cents,
        driven_cents,
        impact_cents: r.raised_cents + r.given_cents + driven_cents,
      };
    })
    .sort((a, b) => b.impact_cents - a.impact_cents || (a.name ?? '\uffff').localeCompare(b.name ?? '\uffff') || a.id.localeCompare(b.id));
  return { data: ranked.slice(0, IMPACT_RAIL_MAX), total: rows.length };
}

/** Stores an application as plain text (markup removed); a field left empty by that is a 400. */
export async function apply(ctx: AppContext, actor: Actor | null, body: z.infer<typeof applicationBody>) {
  const name = (plainText(body.name) ?? '').trim();
  const message = (plainText(body.message) ?? '').trim();
  if (!name) throw badRequest('name must contain text', { details: [{ path: 'body.name', message: 'must contain text' }] });
  if (!message) throw badRequest('message must contain text', { details: [{ path: 'body.message', message: 'must contain text' }] });
  return repo.insertApplication(ctx.db, { name, email: body.email.toLowerCase(), message, links: body.links ?? [], user_id: actor?.userId ?? null });
}
