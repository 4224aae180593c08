import type { Db } from '../../db/knex';
import type { Actor } from '../../http/actor';
import { ApiError } from '../../http/errors';
import type { Locale } from '../../integrations/mail';
import { plainText } from '../../infra/plain-text';
import { erasurePending } from './erasure.reads';
import { findProfile, slugHolder, updateProfile, type ProfilePatch, type ProfileRow } from '../idp';
import { BADGE_LABELS, RESERVED_SLUGS } from './profiles.copy';
import { isSelf, profileExistsFor, profileOpenTo } from './profiles.policy';
import * as reads from './profiles.reads';
import { AVATAR_MAX, BIO_MAX, NAME_MAX, SLUG_RE, type BadgeCode, type ProfileBody } from './profiles.schemas';

const iso = (v: Date | string) => new Date(v).toISOString();
const notFound = () => new ApiError(404, 'Not found', 'Profile not found');

export function toPublicProfile(p: ProfileRow) {
  return {
    id: p.id,
    slug: p.profile_slug,
    name: p.name,
    avatar: p.avatar,
    bio: p.bio,
    is_private: p.profile_private,
    created_at: iso(p.created_at),
    roles_public: (['ambassador', 'staff'] as const).filter((r) => p.roles.includes(r)),
  };
}

/** A profile the caller may know exists (404 otherwise: unknown, inactive, or not a slug or uuid). */
async function existing(db: Db, actor: Actor | null, idOrSlug: string): Promise<ProfileRow> {
  const p = await findProfile(db, idOrSlug);
  if (!profileExistsFor(p, actor)) throw notFound();
  if (!isSelf(p, actor) && (await erasurePending(db, p.id))) throw notFound();
  return p;
}

export async function readProfile(db: Db, actor: Actor | null, idOrSlug: string) {
  const p = await existing(db, actor, idOrSlug);
  if (!profileOpenTo(p, actor)) throw notFound();
  return toPublicProfile(p);
}

export async function badges(db: Db, actor: Actor | null, idOrSlug: string, locale: Locale) {
  const p = await existing(db, actor, idOrSlug);
  if (!profileOpenTo(p, actor)) return { badges: [] };
  const facts = await reads.badgeFacts(db, p.id);
  const earned: Array<[BadgeCode, Date | null]> = [
    ['verified_email', p.email_verified_at],
    // Role grants carry no date of their own: the badge dates from the account.
    ['staff', p.roles.includes('staff') ? p.created_at : null],
    ['ambassador', p.roles.includes('ambassador') ? p.created_at : null],
    ['first_campaign', facts.first_campaign],
    ['first_gift', facts.first_gift],
    ['goal_reached', facts.goal_reached],
    ['endorser', facts.endorser],
  ];
  const labels = BADGE_LABELS[locale];
  const list = earned
    .filter((e): e is [BadgeCode, Date] => e[1] !== null)
    .map(([code, at]) => ({ code, label: labels[code], earned_at: iso(at) }))
    .sort((a, b) => (a.earned_at < b.earned_at ? 1 : a.earned_at > b.earned_at ? -1 : 0));
  return { badges: list };
}

export async function campaigns(db: Db, actor: Actor | null, idOrSlug: string, lang: string | null, limit: number) {
  const p = await existing(db, actor, idOrSlug);
  if (!profileOpenTo(p, actor)) return { data: [] };
  const rows = await reads.profileCampaigns(db, p.id, { owner: isSelf(p, actor), lang, limit });
  return {
    data: rows.map((r: any) => ({
      id: r.id,
      title: r.title,
      slug: r.slug,
      summary: r.summary,
      cover_image: r.cover_image,
      status: r.status,
      visibility: r.visibility,
      goal_amount_cents: Number(r.goal_amount_cents),
      total_raised_cents: Number(r.raised_cents),
      currency: r.currency,
      donor_count: Number(r.donor_count),
      is_endorsed: r.is_endorsed,
      owner: { id: r.owner_id, name: r.owner_name, avatar: r.owner_avatar, profile_slug: r.owner_profile_slug },
      created_at: iso(r.created_at),
    })),
  };
}

export type SlugVerdict = { available: true; reason: null } | { available: false; reason: 'invalid' | 'reserved' | 'taken' };

export const normalizeSlug = (s: string) => s.trim().toLowerCase();

/** Whether `slug` (normalized) may be taken by `userId` (or by anyone, for a guest). Your own slug is available to you. */
export async function slugVerdict(db: Db, slug: string, userId: string | null): Promise<SlugVerdict> {
  if (!SLUG_RE.test(slug)) return { available: false, reason: 'invalid' };
  if (RESERVED_SLUGS.has(slug)) return { available: false, reason: 'reserved' };
  const holder = await slugHolder(db, slug);
  if (holder && holder !== userId) return { available: false, reason: 'taken' };
  return { available: true, reason: null };
}

function text(field: string, v: string | null | undefined, max: number, required: boolean): string | null | undefined {
  if (v === undefined || v === null) return v;
  const t = plainText(v);
  if (t === null) throw new ApiError(400, 'Validation failed', `${field} must be plain text`, { details: [{ path: field, message: 'must be plain text' }] });
  if (t.length > max || (required && t.length === 0)) {
    throw new ApiError(400, 'Validation failed', `${field} must be ${required ? '1' : '0'} to ${max} characters of text`, {
      details: [{ path: field, message: `must be ${required ? '1' : '0'} to ${max} characters of text` }],
    });
  }
  return t.length === 0 ? null : t;
}

function avatarUrl(v: string | null | undefined): string | null | undefined {
  if (v === undefined || v === null || v === '') return v === '' ? null : v;
  let ok = false;
  try {
    const u = new URL(v);
    ok = (u.protocol === 'https:' || u.protocol === 'http:') && v.length <= AVATAR_MAX;
  } catch {
    ok = false;
  }
  if (!ok) throw new ApiError(400, 'Validation failed', 'avatar must be an http(s) URL', { details: [{ path: 'avatar', message: 'must be an http(s) URL' }] });
  return v;
}

export async function updateMyProfile(db: Db, actor: Actor, body: ProfileBody) {
  const patch: ProfilePatch = {};
  const name = text('name', body.name, NAME_MAX, true);
  if (name !== undefined) patch.name = name;
  const bio = text('bio', body.bio, BIO_MAX, false);
  if (bio !== undefined) patch.bio = bio;
  const avatar = avatarUrl(body.avatar);
  if (avatar !== undefined) patch.avatar = avatar;
  if (body.is_private !== undefined) patch.profile_private = body.is_private;
  if (body.slug !== undefined) {
    const slug = normalizeSlug(body.slug);
    const v = await slugVerdict(db, slug, actor.userId);
    if (!v.available) {
      if (v.reason === 'taken') throw new ApiError(409, 'Slug taken', 'That profile address is already taken', { code: 'SLUG_TAKEN' });
      throw new ApiError(400, 'Invalid slug', v.reason === 'reserved' ? 'That profile address is reserved' : 'A profile address is 3 to 40 lower-case letters, digits and hyphens, starting with a letter or digit', {
        code: v.reason === 'reserved' ? 'SLUG_RESERVED' : 'SLUG_INVALID',
      });
    }
    patch.profile_slug = slug;
  }
  try {
    const row = await updateProfile(db, actor.userId, patch);
    if (!row) throw notFound();
    return toPublicProfile(row);
  } catch (err) {
    // Two accounts claiming the same free slug at once: the unique index decides.
    if ((err as { code?: string }).code === '23505') throw new ApiError(409, 'Slug taken', 'That profile address is already taken', { code: 'SLUG_TAKEN' });
    throw err;
  }
}
