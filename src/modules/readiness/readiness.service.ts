import type { AppContext } from '../../context';
import { notFound } from '../../http/errors';
import { profileReadiness, type OwnerProfile } from '../fundraisers';
import { userProfile } from '../idp';

export interface ChecklistItem {
  key: string;
  ok: boolean;
  blocker: boolean;
  message: string;
}

export interface Readiness {
  ready: boolean;
  checklist: ChecklistItem[] | null;
  migration_pending: boolean;
}

/** The publish gate's profile codes, in checklist order, with what to say once each is done. */
const BLOCKERS: Array<{ key: string; code: string; done: string }> = [
  { key: 'profile_name', code: 'PROFILE_NAME_MISSING', done: 'Your name is on your profile.' },
  { key: 'email_verified', code: 'EMAIL_NOT_VERIFIED', done: 'Your email address is verified.' },
  { key: 'private_contact_verified', code: 'PRIVATE_CONTACT_NOT_VERIFIED', done: 'Your private contact address is verified.' },
];

/** Not required to publish, but campaigns with them are trusted more. */
const SUGGESTIONS: Array<{ key: string; ok: (o: OwnerProfile) => boolean; todo: string; done: string }> = [
  { key: 'avatar', ok: (o) => Boolean(o.avatar), todo: 'Add a profile photo.', done: 'Your profile has a photo.' },
  { key: 'profile_slug', ok: (o) => Boolean(o.profile_slug), todo: 'Choose a profile address (slug) to share.', done: 'Your profile has an address.' },
];

/** Postgres "undefined table" / "undefined column": the schema behind the checklist is not migrated yet. */
const SCHEMA_MISSING = new Set(['42P01', '42703']);

/**
 * The caller's publish-readiness checklist. Hard blockers are exactly what the publish gate's
 * profile check refuses (profileReadiness): a code the gate adds later shows up as a blocker
 * under its own name, so the two cannot drift apart. Campaign-level checks (an image, content
 * review) run on the campaign when it is published.
 */
export async function publishReadiness(ctx: AppContext, userId: string): Promise<Readiness> {
  let owner: OwnerProfile | undefined;
  try {
    owner = await userProfile(ctx.db, userId);
  } catch (err) {
    if (SCHEMA_MISSING.has((err as { code?: string }).code ?? '')) return { ready: true, checklist: null, migration_pending: true };
    throw err;
  }
  if (!owner) throw notFound('User');
  const failing = new Map(profileReadiness(owner).map((m) => [m.code, m.message]));
  const known = new Set(BLOCKERS.map((b) => b.code));
  const checklist: ChecklistItem[] = [
    ...BLOCKERS.map((b) => ({ key: b.key, ok: !failing.has(b.code), blocker: true, message: failing.get(b.code) ?? b.done })),
    ...[...failing].filter(([code]) => !known.has(code)).map(([code, message]) => ({ key: code.toLowerCase(), ok: false, blocker: true, message })),
    ...SUGGESTIONS.map((s) => ({ key: s.key, ok: s.ok(owner), blocker: false, message: s.ok(owner) ? s.done : s.todo })),
  ];
  return { ready: checklist.every((c) => !c.blocker || c.ok), checklist, migration_pending: false };
}
