import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { emit } from '../../events';
import type { Actor } from '../../http/actor';
import { ApiError } from '../../http/errors';
import { requireVerifiedEmail } from '../../http/verified-email';
import { resolveLocation } from '../../integrations/geo';
import type { ReviewResult } from '../../integrations/review';
import { saveReview } from '../../integrations/review/review.repo';
import { enqueue } from '../../infra/jobs';
import { invalidateListTotals } from '../../infra/list-totals-version';
import { lockAccountRow, userProfile } from '../idp';
import { requireOrgPermissionById } from '../organizations';
import { resolveCategoryId } from './categories.reads';
import * as repo from './fundraisers.repo';
import type { FundraiserRow, OwnerProfile } from './fundraisers.repo';
import { langOr, type CreateBody, type UpdateBody, type WritableFields } from './fundraisers.schemas';
import { COVER_TINT_QUEUE } from './fundraisers.jobs';
import { LIMITS } from './limits';
import { candidateOf, gateFailed, reviewCandidate, runPublishGate } from './publish-gate';
import { toIsoDate } from './serialize';
import { sanitizeStory } from './story-html';
import { planTransition } from './transitions';
import { forgetTrustStatus } from './trust-status';

const CONTENT_FIELDS = ['title', 'summary', 'story_html', 'goal_amount_cents', 'currency', 'end_date'] as const;

function fieldError(path: string, message: string): ApiError {
  return new ApiError(400, 'Validation failed', `body.${path}: ${message}`, { details: [{ path: `body.${path}`, message }] });
}

const blankToNull = (v: string | null | undefined) => (v === undefined ? undefined : v === null || v.trim() === '' ? null : v);

/** Turns the provided writable fields into column values (sanitised, resolved, normalised). */
async function columnsFor(ctx: AppContext, body: WritableFields): Promise<Record<string, unknown>> {
  const c: Record<string, unknown> = {};
  if (body.title !== undefined) c.title = body.title;
  if (body.summary !== undefined) c.summary = blankToNull(body.summary);
  if (body.story_html !== undefined) c.story_html = body.story_html === null ? null : blankToNull(sanitizeStory(body.story_html));
  if (body.goal_amount_cents !== undefined) c.goal_amount_cents = body.goal_amount_cents;
  if (body.currency !== undefined) c.currency = body.currency;
  if (body.type !== undefined) c.type = body.type;
  if (body.is_project !== undefined) c.is_project = body.is_project;
  if (body.category !== undefined) {
    if (body.category === null) c.category_id = null;
    else {
      const id = await resolveCategoryId(ctx.db, body.category);
      if (id === null) throw fieldError('category', 'unknown category');
      c.category_id = id;
    }
  }
  if (body.tags !== undefined) {
    c.tags = body.tags === null ? null : [...new Set(body.tags.map((t) => t.toLowerCase()))];
  }
  if (body.cover_image !== undefined) c.cover_image = body.cover_image;
  if (body.cover_image_focal_x !== undefined) c.cover_image_focal_x = body.cover_image_focal_x;
  if (body.cover_image_focal_y !== undefined) c.cover_image_focal_y = body.cover_image_focal_y;
  if (body.images !== undefined) c.images = body.images;
  if (body.video_url !== undefined) {
    if (body.video_url !== null && !(await ctx.flags.isEnabled('features.fundraiser_video'))) {
      throw new ApiError(403, 'Feature disabled', 'Campaign videos are currently turned off', { feature_key: 'features.fundraiser_video' });
    }
    c.video_url = body.video_url;
  }
  if (body.location !== undefined) {
    c.location = blankToNull(body.location);
    const point = c.location ? resolveLocation(c.location as string) : null;
    c.location_lat = point?.lat ?? null;
    c.location_lng = point?.lng ?? null;
    c.location_label = point?.label ?? null;
  }
  if (body.beneficiary_name !== undefined) c.beneficiary_name = blankToNull(body.beneficiary_name);
  if (body.beneficiary_contact !== undefined) c.beneficiary_contact = blankToNull(body.beneficiary_contact);
  if (body.end_date !== undefined) c.end_date = body.end_date;
  if (body.visibility !== undefined) c.visibility = body.visibility;
  return c;
}

async function ownerOf(ctx: AppContext, actor: Actor): Promise<OwnerProfile> {
  const owner = await userProfile(ctx.db, actor.userId);
  if (!owner) throw new ApiError(401, 'Not authenticated', 'Sign in to continue');
  return owner;
}

async function afterWrite(ctx: AppContext, trx: Knex.Transaction, row: FundraiserRow, review: ReviewResult | null, coverChanged: boolean) {
  if (review) await saveReview(trx, row.id, review);
  if (coverChanged && row.cover_image) {
    await enqueue(trx, COVER_TINT_QUEUE, { fundraiser_id: row.id }, { singletonKey: row.id });
  }
}

/** A campaign went live: subscribers (achievements) react in their own jobs. */
const emitPublished = (trx: Knex.Transaction, row: FundraiserRow) =>
  emit(trx, 'fundraiser.published', { fundraiser_id: row.id, owner_user_id: row.owner_user_id, org_id: row.org_id ?? null });

/** POST /fundraisers: every create row of the status transition table. */
export async function createFundraiser(ctx: AppContext, actor: Actor, body: CreateBody): Promise<FundraiserRow> {
  const owner = await ownerOf(ctx, actor);
  // Before any work: a campaign for an organization needs the right to speak for it.
  const org = body.organization_id ? await requireOrgPermissionById(ctx.db, actor, body.organization_id, 'org.update_settings') : null;
  const requested = body.status;
  const publishing = requested === 'active' || requested === 'pending';
  if (publishing) requireVerifiedEmail({ emailVerified: owner.email_verified });
  const columns = await columnsFor(ctx, body);
  const values: Record<string, unknown> = { currency: 'USD', ...columns };
  const candidate = candidateOf(actor.userId, null, values);

  let status: 'draft' | 'pending' | 'active' = 'draft';
  let review: ReviewResult;
  if (requested === 'draft') {
    // An explicit draft skips the gate; the review still runs so the owner sees what publishing
    // would say (trustStatus).
    review = await reviewCandidate(ctx, candidate);
  } else {
    // Every other create runs the gate (transition table): status omitted passes into a draft,
    // `active` passes into active; a flag sends either to review (pending); a block is 403.
    const gate = await runPublishGate(ctx, owner, candidate);
    if (gate.outcome === 'block') throw gateFailed(gate);
    if (requested === 'pending' || gate.outcome === 'flag') status = 'pending';
    else status = requested === 'active' ? 'active' : 'draft';
    review = gate.review;
  }

  const row = await ctx.db.transaction(async (trx) => {
    if (status === 'draft' && !owner.email_verified) {
      // Serialise this owner's creates so concurrent requests cannot exceed the draft limit.
      await lockAccountRow(trx, owner.id);
      if ((await repo.countDrafts(trx, owner.id)) >= LIMITS.unverifiedDraftMax) {
        throw new ApiError(403, 'Forbidden', `Verify your email address to keep more than ${LIMITS.unverifiedDraftMax} drafts`, {
          code: 'UNVERIFIED_DRAFT_LIMIT',
          action: 'verify_email',
          limit: LIMITS.unverifiedDraftMax,
        });
      }
    }
    const inserted = await repo.insertWithUniqueSlug(trx, String(values.title), {
      ...values,
      owner_user_id: owner.id,
      org_id: org?.id ?? null,
      status,
      source_language: langOr(owner.locale),
      approved_at: status === 'active' ? trx.fn.now() : null,
      submitted_at: status === 'pending' ? trx.fn.now() : null,
    });
    await afterWrite(ctx, trx, inserted, review, true);
    if (inserted.status === 'active') await emitPublished(trx, inserted);
    return inserted;
  });
  if (row.status === 'active') await invalidateListTotals(ctx);
  return row;
}

/** Columns a campaign's share images and cards show others; an edit of any emits fundraiser.updated. */
const SHOWN = ['title', 'cover_image', 'cover_image_focal_x', 'cover_image_focal_y', 'goal_amount_cents', 'currency', 'category_id', 'status', 'visibility'];

/** Columns that decide whether (and where) a campaign is counted in the public list. */
const LISTED_BY = ['status', 'visibility', 'category_id', 'is_project', 'end_date'];

function changed(row: FundraiserRow, columns: Record<string, unknown>, key: string): boolean {
  if (!(key in columns)) return false;
  const before = key === 'end_date' ? toIsoDate(row.end_date) : (row as unknown as Record<string, unknown>)[key];
  const after = columns[key];
  return JSON.stringify(before ?? null) !== JSON.stringify(after ?? null) && !(typeof before === 'number' && Number(after) === before);
}

/** Any gift was ever paid (first_paid_at is stamped with the counters and never cleared). */
function hasCollectedMoney(row: FundraiserRow): boolean {
  return Number(row.raised_cents) > 0 || row.first_paid_at != null;
}

/** PATCH /fundraisers/:id: field edits plus the owner's status transitions (`row` passed the ownsFundraiser policy). */
export async function updateFundraiser(ctx: AppContext, actor: Actor, row: FundraiserRow, body: UpdateBody): Promise<FundraiserRow> {
  const owner = await ownerOf(ctx, actor);
  const to = body.status;
  const draftOnlyEdit = row.status === 'draft' && (to === undefined || to === 'draft');
  if (!draftOnlyEdit) requireVerifiedEmail({ emailVerified: owner.email_verified });

  // Once any gift was paid the campaign has collected money, even if it was refunded since.
  const collected = hasCollectedMoney(row);
  const plan = planTransition(row.status, to, collected);
  const columns = await columnsFor(ctx, body);
  const merged = { ...row, ...columns } as Record<string, unknown>;
  const contentChanged = CONTENT_FIELDS.some((k) => changed(row, columns, k));

  const patch: Record<string, unknown> = { ...columns };
  let review: ReviewResult | null = null;
  if (plan.kind === 'gate') {
    const gate = await runPublishGate(ctx, owner, candidateOf(row.owner_user_id, row.id, merged));
    if (gate.outcome === 'block') throw gateFailed(gate);
    review = gate.review;
    const status = plan.requested === 'pending' || gate.outcome === 'flag' ? 'pending' : 'active';
    patch.status = status;
    if (status === 'active') patch.approved_at = ctx.db.fn.now();
    else patch.submitted_at = ctx.db.fn.now();
  } else {
    if (plan.kind === 'set') patch.status = plan.status;
    if (contentChanged) {
      // Edits re-run the content review. On a live campaign a block refuses the edit; the end
      // date is judged only when it is being changed (a past end date closes, not blocks).
      const candidate = candidateOf(row.owner_user_id, row.id, merged);
      if (!changed(row, columns, 'end_date')) candidate.end_date = null;
      review = await reviewCandidate(ctx, candidate);
      const live = ['active', 'paused'].includes(String(patch.status ?? row.status));
      if (live && review.aiDecision === 'block') {
        throw gateFailed({ outcome: 'block', review, reasons: review.rejectionReasons, messages: review.userMessages });
      }
    }
  }
  const coverChanged = 'cover_image' in columns && columns.cover_image !== row.cover_image;
  if (coverChanged) patch.cover_tint = null;

  const updated = await ctx.db.transaction(async (trx) => {
    const locked = await repo.findByIdForUpdate(trx, row.id);
    if (!locked || locked.deleted_at || locked.status !== row.status) {
      throw new ApiError(409, 'Conflict', 'The campaign changed while saving; reload and try again', { code: 'CONCURRENT_UPDATE' });
    }
    const next = await repo.update(trx, row.id, patch);
    await afterWrite(ctx, trx, next, review, coverChanged);
    // Only the gate publishes; resuming a paused campaign is not going live again.
    if (plan.kind === 'gate' && next.status === 'active') await emitPublished(trx, next);
    const shown = SHOWN.filter((k) => changed(row, patch, k));
    if (shown.length > 0) await emit(trx, 'fundraiser.updated', { fundraiser_id: next.id, fields: shown });
    return next;
  });
  if (review) await forgetTrustStatus(ctx, row.id);
  if (LISTED_BY.some((k) => k in patch)) await invalidateListTotals(ctx);
  return updated;
}

/** DELETE /fundraisers/:id: soft delete by the owner (`row` passed the ownsFundraiser policy); refused once money was collected. */
export async function deleteFundraiser(ctx: AppContext, row: FundraiserRow): Promise<{ message: string; id: string }> {
  if (hasCollectedMoney(row)) {
    throw new ApiError(400, 'Bad request', 'A campaign that has collected funds cannot be deleted', { code: 'FUNDS_COLLECTED' });
  }
  await ctx.db.transaction(async (trx) => {
    await repo.update(trx, row.id, { deleted_at: trx.fn.now() });
    // Subscribers react to a campaign going away (monthly gifts to it stop).
    await emit(trx, 'fundraiser.updated', { fundraiser_id: row.id, fields: ['deleted_at'] });
  });
  await invalidateListTotals(ctx);
  return { message: 'Fundraiser deleted', id: row.id };
}

// Lives beside the reads so the module's index can export it without pulling in this service.
export { readable } from './reads';
