import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError, notFound } from '../../http/errors';
import { queueComposedMail, toLocale, type Locale } from '../../integrations/mail';
import { emit } from '../../events';
import { plainText } from '../../infra/plain-text';
import { readable, type FundraiserRow } from '../fundraisers';
import { userProfile } from '../idp';
import { endorsementRequestMail } from './endorsements.copy';
import { isEndorsable } from './endorsements.policy';
import * as repo from './endorsements.repo';
import { MESSAGE_MAX } from './endorsements.schemas';

/** Endorsement requests a campaign may send a day: the mail goes to any address, so it is capped. */
export const REQUESTS_PER_DAY = 20;

const iso = (v: Date | string) => new Date(v).toISOString();

function message(v: string | null | undefined): string | null | undefined {
  if (v === undefined || v === null) return v;
  const t = plainText(v);
  if (t === null || t.length > MESSAGE_MAX) {
    throw new ApiError(400, 'Validation failed', `message must be plain text of at most ${MESSAGE_MAX} characters`, {
      details: [{ path: 'message', message: `must be plain text of at most ${MESSAGE_MAX} characters` }],
    });
  }
  return t.length ? t : null;
}

/** A campaign the caller can see and endorse; 404 when unreadable, 400 when not public and live. */
async function endorsable(ctx: AppContext, actor: Actor, id: string): Promise<FundraiserRow> {
  const f = await readable(ctx, actor, { id });
  if (!isEndorsable(f)) {
    throw new ApiError(400, 'Not endorsable', 'Only public campaigns that are active or ended can be endorsed', { code: 'FUNDRAISER_NOT_PUBLIC' });
  }
  return f;
}

export async function endorse(ctx: AppContext, actor: Actor, id: string, body: { message?: string | null }) {
  const f = await endorsable(ctx, actor, id);
  if (f.owner_user_id === actor.userId) {
    throw new ApiError(403, 'Forbidden', 'You cannot endorse your own campaign', { code: 'SELF_ENDORSEMENT' });
  }
  const text = message(body.message);
  const row = await ctx.db.transaction(async (trx) => {
    const r = await repo.upsert(trx, f.id, actor.userId, text);
    if (r.created) {
      await emit(trx, 'endorsement.created', { fundraiser_id: f.id, endorser_user_id: actor.userId, holder_user_id: f.owner_user_id, message: r.message });
    }
    return r;
  });
  const me = await userProfile(ctx.db, actor.userId);
  return {
    created: row.created,
    data: {
      fundraiser_id: row.fundraiser_id,
      endorser: { id: actor.userId, name: me?.name ?? null, avatar: me?.avatar ?? null, profile_slug: me?.profile_slug ?? null },
      message: row.message,
      created_at: iso(row.created_at),
    },
  };
}

/** Withdraws the caller's endorsement; idempotent (204 whether or not there was one). */
export async function withdraw(ctx: AppContext, actor: Actor, id: string): Promise<void> {
  const f = await readable(ctx, actor, { id });
  await repo.remove(ctx.db, f.id, actor.userId);
}

export async function requestEndorsement(ctx: AppContext, actor: Actor, f: FundraiserRow, email: string, requestLocale: Locale | null) {
  if (!isEndorsable(f)) {
    throw new ApiError(400, 'Not endorsable', 'Only public campaigns that are active or ended can be endorsed', { code: 'FUNDRAISER_NOT_PUBLIC' });
  }
  if ((await repo.requestsToday(ctx.db, f.id)) >= REQUESTS_PER_DAY) {
    throw new ApiError(429, `At most ${REQUESTS_PER_DAY} endorsement requests a day per campaign`, 'Try again tomorrow', { retryAfter: 86_400 });
  }
  const me = await userProfile(ctx.db, actor.userId);
  if (!me) throw notFound('User');
  const locale = requestLocale ?? toLocale(me.locale);
  const url = `${ctx.config.SITE_URL}/fundraisers/${encodeURIComponent(f.slug)}?endorse=1`;
  const row = await ctx.db.transaction(async (trx) => {
    const r = await repo.insertRequest(trx, f.id, actor.userId, email);
    await queueComposedMail(trx, {
      to: email,
      template: 'endorsement_request',
      locale,
      ...endorsementRequestMail(locale, { requester: me.name, campaign_title: f.title, campaign_url: url }),
    });
    return r;
  });
  return { data: { id: row.id, fundraiser_id: row.fundraiser_id, email: row.email, created_at: iso(row.created_at) } };
}
