import type { Knex } from 'knex';
import { queryRows, type Db } from '../../db/knex';
import { publicUserJoinSql, type UserProfile } from '../idp';
import { categoryJoinSql, categoryNameSql } from './categories.reads';
import type { Lang } from './fundraisers.schemas';
import { slugify, slugSuffix } from './slug';
import { totalsColumns, totalsFromRow, type FundraiserTotals } from './totals';
import { counterSql } from './counters';

export * from './fundraisers.shares.repo';

type Q = Db | Knex.Transaction;

/** A fundraisers row (columns as stored). */
export interface FundraiserRow {
  id: string;
  owner_user_id: string;
  org_id: string | null;
  title: string;
  slug: string;
  summary: string | null;
  story_html: string | null;
  goal_amount_cents: number;
  currency: string;
  status: 'draft' | 'pending' | 'active' | 'paused' | 'ended' | 'rejected';
  visibility: 'public' | 'unlisted' | 'private';
  type: 'personal' | 'for_others' | 'charity';
  is_project: boolean;
  category_id: number | null;
  tags: string[] | null;
  cover_image: string | null;
  cover_image_focal_x: number | null;
  cover_image_focal_y: number | null;
  images: string[] | null;
  video_url: string | null;
  location: string | null;
  location_lat: number | null;
  location_lng: number | null;
  location_label: string | null;
  beneficiary_name: string | null;
  beneficiary_contact: string | null;
  source_language: string;
  end_date: Date | string | null;
  approved_at: Date | null;
  goal_reached_at: Date | null;
  /** When the first gift was paid (stamped with the counters); set means the campaign has collected money. */
  first_paid_at: Date | null;
  cover_tint: string | null;
  raised_cents: number;
  donor_count: number;
  /** Donors with a live monthly gift; the donations module sets it with each change (setRecurringDonorCount). */
  recurring_donor_count: number;
  donation_count: number;
  shares_count: number;
  submitted_at: Date | null;
  reviewed_at: Date | null;
  reviewed_by: string | null;
  review_rejection_reasons: string[] | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Written by the media module (PUT /fundraisers/{id}/outcome-report); shown on the slug read. */
  outcome_report: OutcomeReport | null;
}

export interface OutcomeReport {
  body_html: string;
  images: string[];
  updated_at: string;
}

/** The campaign holder's account as the publish gate and readiness judge it (identity's profile read). */
export type OwnerProfile = UserProfile;

/**
 * The money counters a row read shows: the shards' sums (counters.ts), never the ranking copy the
 * fundraisers columns of the same names hold. Listed after `fundraisers.*`, they replace those
 * columns in the answer (pg keeps the last of two columns of one name).
 */
const LIVE = (['raised_cents', 'donor_count', 'donation_count'] as const).map((c) => `${counterSql('fundraisers.id', c)}::${c === 'raised_cents' ? 'bigint' : 'int'} as ${c}`).join(', ');

export async function findById(db: Q, id: string): Promise<FundraiserRow | undefined> {
  return db('fundraisers').where({ id }).first(db.raw(`fundraisers.*, ${LIVE}`));
}

export async function findByIdForUpdate(trx: Knex.Transaction, id: string): Promise<FundraiserRow | undefined> {
  return trx('fundraisers').where({ id }).forUpdate().first(trx.raw(`fundraisers.*, ${LIVE}`));
}

export async function findBySlug(db: Q, slug: string): Promise<FundraiserRow | undefined> {
  return db('fundraisers').where({ slug: slug.toLowerCase() }).first(db.raw(`fundraisers.*, ${LIVE}`));
}

/**
 * Every FundraiserRow column, named: `f.*` would also ship search_vector (a tsvector as large as
 * the story) on every read. The check below fails to compile when FundraiserRow gains a column.
 */
const ROW_COLUMNS = [
  'id', 'owner_user_id', 'org_id', 'title', 'slug', 'summary', 'story_html', 'goal_amount_cents', 'currency', 'status',
  'visibility', 'type', 'is_project', 'category_id', 'tags', 'cover_image', 'cover_image_focal_x', 'cover_image_focal_y',
  'images', 'video_url', 'location', 'location_lat', 'location_lng', 'location_label', 'beneficiary_name',
  'beneficiary_contact', 'source_language', 'end_date', 'approved_at', 'goal_reached_at', 'first_paid_at', 'cover_tint', 'raised_cents',
  'donor_count', 'recurring_donor_count', 'donation_count', 'shares_count', 'submitted_at', 'reviewed_at', 'reviewed_by',
  'review_rejection_reasons', 'deleted_at', 'created_at', 'updated_at', 'outcome_report',
] as const satisfies ReadonlyArray<keyof FundraiserRow>;
const LIVE_COLUMNS = new Set<string>(['raised_cents', 'donor_count', 'donation_count']);
const allColumnsListed: Exclude<keyof FundraiserRow, (typeof ROW_COLUMNS)[number]> extends never ? true : never = true;
void allColumnsListed;

/** What a detail read shows beyond the row, fetched with it (see readDetail). */
export interface DetailExtras {
  totals: FundraiserTotals;
  /** The `lang` overlay when one is stored and differs from the source language; else null. */
  translation: { title: string | null; summary: string | null; story_html: string | null } | null;
  category_name: string | null;
  profile: Pick<OwnerProfile, 'name' | 'avatar' | 'email_verified' | 'profile_slug'> | null;
}

/**
 * A detail read in one round trip: the row, its totals, its category name (in `lang`, else the
 * source language, else English, else the slug), the owner's public profile and, only when a
 * `lang` is asked for, the stored translation. Visibility is the caller's to check.
 */
export async function readDetail(
  db: Q,
  by: { id: string } | { slug: string },
  lang: Lang | undefined,
): Promise<{ row: FundraiserRow; extras: DetailExtras } | undefined> {
  const withTr = lang !== undefined;
  const [x] = await queryRows(
    db,
    `select ${ROW_COLUMNS.map((c) => (LIVE_COLUMNS.has(c) ? `${counterSql('f.id', c as 'raised_cents')} as ${c}` : `f.${c}`)).join(', ')}, ${totalsColumns('f')},
        ${categoryNameSql('c', '?::text', 'f.source_language')} as x_category_name,
        u.id as x_owner_id, u.name as x_owner_name, u.avatar as x_owner_avatar,
        u.email_verified as x_owner_email_verified, u.profile_slug as x_owner_profile_slug
        ${withTr ? ', tr.title as x_tr_title, tr.summary as x_tr_summary, tr.story_html as x_tr_story_html, tr.lang as x_tr_lang' : ''}
      from fundraisers f
      ${categoryJoinSql('c', 'f.category_id')}
      ${publicUserJoinSql('u', 'f.owner_user_id', { left: true })}
      ${withTr ? 'left join fundraiser_translations tr on tr.fundraiser_id = f.id and tr.lang = ? and tr.lang <> f.source_language' : ''}
      where ${'id' in by ? 'f.id = ?' : 'f.slug = ?'}`,
    [lang ?? null, ...(withTr ? [lang] : []), 'id' in by ? by.id : by.slug.toLowerCase()],
  );
  if (!x) return undefined;
  const row = {} as Record<string, unknown>;
  for (const c of ROW_COLUMNS) row[c] = x[c];
  return {
    row: row as unknown as FundraiserRow,
    extras: {
      totals: totalsFromRow(x),
      translation: x.x_tr_lang ? { title: x.x_tr_title as string | null, summary: x.x_tr_summary as string | null, story_html: x.x_tr_story_html as string | null } : null,
      category_name: (x.x_category_name as string | null) ?? null,
      profile: x.x_owner_id
        ? {
            name: x.x_owner_name as string | null,
            avatar: x.x_owner_avatar as string | null,
            email_verified: Boolean(x.x_owner_email_verified),
            profile_slug: x.x_owner_profile_slug as string | null,
          }
        : null,
    },
  };
}

/** The caller's live drafts (the unverified-caller draft limit). */
export async function countDrafts(db: Q, ownerId: string): Promise<number> {
  const r = await db('fundraisers').where({ owner_user_id: ownerId, status: 'draft' }).whereNull('deleted_at').count<{ n: string }[]>({ n: '*' });
  return Number(r[0]?.n ?? 0);
}

export async function translation(
  db: Q,
  id: string,
  lang: Lang,
): Promise<{ title: string | null; summary: string | null; story_html: string | null } | undefined> {
  return db('fundraiser_translations').where({ fundraiser_id: id, lang }).first('title', 'summary', 'story_html');
}

/**
 * Inserts with a slug unique among all campaigns: the title's slug, or that slug plus a short
 * random suffix on a clash (ON CONFLICT, so concurrent creates cannot collide).
 */
export async function insertWithUniqueSlug(trx: Knex.Transaction, title: string, row: Record<string, unknown>): Promise<FundraiserRow> {
  const base = slugify(title);
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const slug = attempt === 0 ? base : `${base}-${slugSuffix()}`;
    const inserted = await trx('fundraisers').insert({ ...row, slug }).onConflict('slug').ignore().returning('*');
    if (inserted[0]) return inserted[0] as FundraiserRow;
  }
  throw new Error('could not allocate a unique slug');
}

export async function update(trx: Q, id: string, patch: Record<string, unknown>): Promise<FundraiserRow> {
  const [row] = await trx('fundraisers')
    .where({ id })
    .update({ ...patch, updated_at: trx.fn.now() })
    .returning('*');
  return row as FundraiserRow;
}

// ---- shares -------------------------------------------------------------------------------

export async function pendingQueue(db: Q, limit: number, offset: number): Promise<{ rows: FundraiserRow[]; total: number }> {
  const base = db('fundraisers').where({ status: 'pending' }).whereNull('deleted_at');
  const [rows, count] = await Promise.all([
    base.clone().orderByRaw('coalesce(submitted_at, created_at) asc, id asc').limit(limit).offset(offset).select('*'),
    base.clone().count<{ n: string }[]>({ n: '*' }),
  ]);
  return { rows: rows as FundraiserRow[], total: Number(count[0]?.n ?? 0) };
}

// ---- cover tint job -----------------------------------------------------------------------

export async function coverOf(db: Q, id: string): Promise<string | null> {
  const row = await db('fundraisers').where({ id }).whereNull('deleted_at').first('cover_image');
  return row?.cover_image ?? null;
}

/** Stores the tint only if the cover is still the one it was computed from. */
export async function setCoverTint(db: Q, id: string, coverImage: string, tint: string | null): Promise<void> {
  await db('fundraisers').where({ id, cover_image: coverImage }).update({ cover_tint: tint });
}
