import type { AppContext } from '../../context';
import { ApiError, notFound } from '../../http/errors';
import { queueComposedMail } from '../../integrations/mail';
import { findComment, upsertDonationNote } from '../comments';
import { toComment } from '../comments';
import { plainText } from '../../infra/plain-text';
import { receiptMail } from './donations.mail';
import { publicGift } from './public-gifts';
import * as repo from './receipts.repo';

const iso = (v: Date | string) => new Date(v).toISOString();

async function receiptOr404(ctx: AppContext, receiptId: string) {
  const r = await repo.findReceipt(ctx.db, receiptId);
  if (!r) throw notFound('Receipt');
  return r;
}

/** GET /donations/receipt/:receiptId. Never an email or a processor id; no name on anonymous gifts. */
export async function readReceipt(ctx: AppContext, receiptId: string) {
  const r = await receiptOr404(ctx, receiptId);
  return {
    receipt_id: r.receipt_id,
    donation_id: r.id,
    fundraiser: { id: r.fundraiser_id, title: r.fundraiser_title, slug: r.fundraiser_slug },
    amount_cents: Number(r.amount_cents),
    tip_cents: Number(r.tip_cents),
    currency: r.currency,
    donor_name: r.anonymous ? null : r.donor_name,
    paid_at: iso(r.paid_at),
    note: r.note,
  };
}

/**
 * POST /donations/receipt/email: the receipt to any address (the receipt id is the capability;
 * the Strict limiter bounds abuse). The mail goes through the outbox, so the answer is 'queued':
 * the worker sends it within seconds and retries on failure.
 */
export async function emailReceipt(ctx: AppContext, receiptId: string, email: string): Promise<{ status: 'sent' | 'queued' }> {
  const r = await receiptOr404(ctx, receiptId);
  await ctx.db.transaction((trx) =>
    queueComposedMail(
      trx,
      receiptMail(ctx.config.SITE_URL, {
        to: email,
        locale: r.locale,
        campaign: r.fundraiser_title,
        amount_cents: Number(r.amount_cents),
        tip_cents: Number(r.tip_cents),
        currency: r.currency,
        receipt_id: r.receipt_id,
      }),
    ),
  );
  return { status: 'queued' };
}

/**
 * POST /donations/receipt/:receiptId/note: the donor's note, a comment by the donor's account
 * tied to the gift (comments.donation_id). comments.user_id is required and a comment shows
 * its author, so only gifts made while signed in can carry a note (403 DONOR_ACCOUNT_REQUIRED
 * for guest gifts). Deleting the comment (DELETE /comments/{id}) retracts the note: hidden, kept.
 */
export async function postNote(ctx: AppContext, receiptId: string, note: string) {
  const r = await receiptOr404(ctx, receiptId);
  if (!r.donor_user_id) {
    throw new ApiError(403, 'Forbidden', 'Only gifts made while signed in can carry a note', { code: 'DONOR_ACCOUNT_REQUIRED' });
  }
  const body = plainText(note);
  if (!body) {
    const message = body === null ? 'too many levels of HTML entity encoding' : 'the note is empty once markup is removed';
    throw new ApiError(400, 'Validation failed', `body.note: ${message}`, { details: [{ path: 'body.note', message }] });
  }
  const id = await upsertDonationNote(ctx.db, { donationId: r.id, fundraiserId: r.fundraiser_id, userId: r.donor_user_id, body });
  const c = await findComment(ctx.db, id, null);
  if (!c) throw notFound('Comment');
  return toComment(c);
}

/** GET /donations/recent: `created_at` is when the gift was paid; no name for anonymous gifts. */
export async function recent(ctx: AppContext, fundraiserId: string | undefined, limit: number) {
  const rows = await repo.recentGifts(ctx.db, fundraiserId, limit);
  return rows.map((r) => ({ ...publicGift(r), fundraiser: { id: r.fundraiser_id, title: r.title, slug: r.slug } }));
}
