import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { processorOrigin, type PaymentEvent, type ProcessorJoin } from '../../integrations/payments';
import { accountExists } from '../idp';
import * as repo from './communities.repo';
import type { JoinRow, JoinStatus } from './communities.repo';

/**
 * A paid join started after the point a database was restored to has no row, but its SetupIntent
 * and subscription describe it (communities.service.ts). Its events rebuild the request in the
 * transaction that then handles them as usual; the join id is the primary key, so a duplicate or
 * reordered event finds the row instead. The state rebuilt is the one its processor objects
 * prove: a request waiting for a card (a saved card then sends it to the leaders again), an
 * approved one when the event comes from the subscription a leader's approval created, else one
 * waiting for its first payment. Another deployment's joins are never rebuilt here.
 */

/** The description to rebuild from: only a complete one written by this deployment. */
function describedHere(ctx: AppContext, e: PaymentEvent): ProcessorJoin | null {
  const j = e.ref?.kind === 'community_join' ? e.ref.join : undefined;
  if (!j) return null;
  if (j.origin !== processorOrigin(ctx.config.PUBLIC_URL)) {
    ctx.log.info({ joinId: j.join_id, origin: j.origin }, 'community join of another deployment; not rebuilt');
    return null;
  }
  return j;
}

function statusOf(j: ProcessorJoin): JoinStatus {
  if (!j.needs_approval) return 'pending_payment';
  return j.approved ? 'approved' : 'requires_payment_method';
}

/**
 * The rebuilt request, locked (or the one a concurrent event made first: its insert waits for that
 * transaction, then does nothing); undefined when the community or the member's account is not
 * here, or the member already has another open request for it.
 */
export async function rebuildJoin(
  ctx: AppContext,
  trx: Knex.Transaction,
  e: PaymentEvent,
  ids: { subscription?: string | null; customer?: string | null; setupIntent?: string | null } = {},
): Promise<JoinRow | undefined> {
  const j = describedHere(ctx, e);
  if (!j) return undefined;
  const log = { joinId: j.join_id, communityId: j.community_id, eventId: e.id };
  if (!(await repo.findCommunity(trx, j.community_id))) {
    ctx.log.warn(log, 'community join of a community that is not here; not rebuilt');
    return undefined;
  }
  // An account made after the restore point is not here either, and a join belongs to one.
  if (!(await accountExists(trx, j.user_id))) {
    ctx.log.warn(log, 'community join of an account that is not here; not rebuilt');
    return undefined;
  }
  const status = statusOf(j);
  const inserted = await trx('community_joins')
    .insert({
      id: j.join_id,
      community_id: j.community_id,
      user_id: j.user_id,
      interval: j.interval,
      amount_cents: j.amount_cents,
      currency: j.currency,
      needs_approval: j.needs_approval,
      status,
      processor_customer_id: ids.customer ?? null,
      processor_setup_intent_id: ids.setupIntent ?? null,
      processor_subscription_id: ids.subscription ?? null,
      // Which leader said yes is not at the processor; when is about when the subscription was made.
      ...(status === 'approved' ? { decided_at: j.created ?? trx.fn.now() } : {}),
      ...(j.created ? { created_at: j.created } : {}),
    })
    // Also the one-open-request-per-member index: a request made here meanwhile is left alone.
    .onConflict()
    .ignore()
    .returning('id');
  if (inserted.length) ctx.log.info({ ...log, status }, 'community join rebuilt from the processor');
  const row = await repo.lockJoin(trx, j.join_id);
  if (!row) ctx.log.warn(log, 'community join not rebuilt: the member has another open request for this community');
  return row;
}

/**
 * A request still waiting for the leaders whose subscription's invoice arrives: the subscription
 * exists only because a leader approved (the approval's own write was lost with a restore, or its
 * processor call was taken for failed), so the request is approved before the invoice is handled.
 */
export async function approvedByProcessor(ctx: AppContext, trx: Knex.Transaction, join: JoinRow, e: PaymentEvent): Promise<JoinRow> {
  const j = describedHere(ctx, e);
  if (!j?.approved || join.id !== j.join_id || !['requires_payment_method', 'pending_approval'].includes(join.status)) return join;
  const patch: Partial<JoinRow> = { status: 'approved', decided_at: j.created ?? (trx.fn.now() as unknown as Date) };
  await repo.updateJoin(trx, join.id, patch);
  ctx.log.info({ joinId: join.id, was: join.status, eventId: e.id }, 'community join approved, as its subscription shows');
  return { ...join, ...patch };
}
