import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { sha256Hex } from '../../infra/hash';
import { readable, recordShareVisit } from '../fundraisers';
import * as reads from './referrals.reads';
import * as repo from './referrals.repo';
import type { ClickBody } from './referrals.schemas';

/** A caller's repeated clicks on the same link within this window count once (reloads, double taps). */
const DEDUPE_MINUTES = 30;
export const PROFILE_SLUG = /^[a-z0-9][a-z0-9-]{2,39}$/;

/**
 * Records one click on a referral link: a click row (for attribution and the home feed) and a
 * visit through a shared link (share-impact, share-channels). `callerKey` names who clicked
 * (user, visitor cookie or IP); only its hash is stored.
 */
export async function recordClick(ctx: AppContext, actor: Actor | null, callerKey: string, body: ClickBody): Promise<void> {
  const campaign = await readable(ctx, actor, { id: body.fundraiser_id });
  const callerHash = sha256Hex(`referral-click:${callerKey}`);
  if (await repo.clickedRecently(ctx.db, callerHash, campaign.id, body.ref, DEDUPE_MINUTES)) return;
  const slug = body.ref.toLowerCase();
  const referrer = PROFILE_SLUG.test(slug) ? await reads.userIdBySlug(ctx.db, slug) : null;
  const viaEndorser = referrer ? await reads.endorses(ctx.db, referrer, campaign.id) : false;
  const channel = body.channel ?? null;
  await ctx.db.transaction(async (trx) => {
    await repo.insertClick(trx, {
      fundraiser_id: campaign.id,
      ref: body.ref,
      referrer_user_id: referrer,
      channel,
      via_endorser: viaEndorser,
      clicker_user_id: actor?.userId ?? null,
      caller_hash: callerHash,
    });
    await recordShareVisit(trx, { fundraiser_id: campaign.id, channel, sharer_user_id: referrer, via_endorser: viaEndorser });
  });
}
