import type { AppContext } from '../../context';
import { notFound } from '../../http/errors';
import { findById as findFundraiser } from '../fundraisers';
import { findById } from './donations.repo';

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

/**
 * GET /donations/:id, for the Checkout return page: the donation id is the capability (as a tip
 * id is), so the answer carries what the donor may see and nothing that names them (no email,
 * no name, no processor id). The receipt id appears once the gift was paid (paid_at set), as
 * GET /donations/receipt/{id} only knows settled gifts.
 */
export async function readOutcome(ctx: AppContext, id: string) {
  const d = await findById(ctx.db, id);
  if (!d) throw notFound('Donation');
  const f = await findFundraiser(ctx.db, d.fundraiser_id);
  if (!f) throw notFound('Donation');
  return {
    id: d.id,
    status: d.status,
    amount_cents: d.amount_cents,
    tip_cents: d.tip_cents,
    currency: d.currency,
    fundraiser: { id: f.id, title: f.title, slug: f.slug },
    receipt_id: d.paid_at ? d.receipt_id : null,
    recurring_gift_id: d.recurring_gift_id ?? null,
    created_at: iso(d.created_at)!,
    paid_at: iso(d.paid_at),
  };
}
