import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context';
import { emit } from '../../events';
import type { Actor } from '../../http/actor';
import { ApiError, badRequest, notFound } from '../../http/errors';
import { requireVerifiedEmail } from '../../http/verified-email';
import { plainText } from '../../infra/plain-text';
import { joinMetadata, processorOrigin } from '../../integrations/payments';
import { fundBalance } from './communities.fund';
import * as repo from './communities.repo';
import type { CommunityRow, Interval, JoinRow } from './communities.repo';

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

export interface CreateCommunityInput {
  name: string;
  slug?: string;
  description?: string | null;
  is_private?: boolean;
  requires_approval?: boolean;
  price_cents: number;
  interval: Interval;
}

function clean(value: string, field: string): string {
  const text = plainText(value);
  if (text === null) throw badRequest(`${field} could not be read as plain text`);
  return text;
}

function slugFrom(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  return base.length >= 3 ? base : `community${base ? `-${base}` : ''}`;
}

/**
 * A new community owned by the caller (a verified email, since it takes money); the owner is
 * its first member. A taken slug the caller chose is 409; a derived one gets a random suffix.
 */
export async function createCommunity(ctx: AppContext, actor: Actor, input: CreateCommunityInput) {
  requireVerifiedEmail(actor);
  const name = clean(input.name, 'name');
  if (!name) throw badRequest('name must not be empty');
  const description = input.description ? clean(input.description, 'description') || null : null;
  const c = await ctx.db.transaction(async (trx) => {
    let slug = input.slug ?? slugFrom(name);
    if (await repo.slugTaken(trx, slug)) {
      if (input.slug) throw new ApiError(409, 'Conflict', 'That slug is taken', { code: 'SLUG_TAKEN' });
      slug = `${slug}-${randomBytes(3).toString('hex')}`;
    }
    const row = await repo.insertCommunity(trx, {
      slug,
      name,
      description,
      is_private: input.is_private ?? false,
      requires_approval: input.requires_approval ?? false,
      price_cents: input.price_cents,
      interval: input.interval,
      owner_user_id: actor.userId,
    });
    await repo.upsertMember(trx, { community_id: row.id, user_id: actor.userId, role: 'owner', join_id: null });
    return row;
  });
  return view(ctx, c, actor);
}

/** The public read; a signed-in caller also sees their membership, the owner the fund. */
export async function view(ctx: AppContext, c: CommunityRow, actor: Actor | null) {
  const m = actor ? await repo.membership(ctx.db, c.id, actor.userId) : undefined;
  return {
    data: {
      id: c.id,
      slug: c.slug,
      name: c.name,
      description: c.description,
      is_private: c.is_private,
      requires_approval: c.requires_approval,
      price_cents: c.price_cents,
      currency: 'USD' as const,
      interval: c.interval,
      owner_user_id: c.owner_user_id,
      member_count: await repo.memberCount(ctx.db, c.id),
      created_at: iso(c.created_at)!,
      ...(actor ? { membership: m ? { role: m.role, status: m.status } : null } : {}),
      ...(actor?.userId === c.owner_user_id ? { fund_balance_cents: await fundBalance(ctx.db, c.id) } : {}),
    },
  };
}

export async function readCommunity(ctx: AppContext, idOrSlug: string, actor: Actor | null) {
  const c = await repo.findCommunity(ctx.db, idOrSlug);
  if (!c) throw notFound('Community');
  return view(ctx, c, actor);
}

/** Leaders approve, or the community is private: both make a paid join wait for a decision. */
export const needsApproval = (c: CommunityRow) => c.requires_approval || c.is_private;

type Described = Pick<JoinRow, 'id' | 'community_id' | 'user_id' | 'interval' | 'amount_cents' | 'currency' | 'needs_approval'>;

/**
 * The join named and described, so a database restored to before it can rebuild it from the
 * processor's events (communities.rebuild.ts). The same request always gives the same metadata:
 * the processor calls are idempotent by the request's id and would refuse other parameters.
 */
const metadataOf = (ctx: AppContext, j: Described, stage: { approved: boolean } = { approved: false }) => ({
  kind: 'community_join',
  join_id: j.id,
  ...joinMetadata({
    community_id: j.community_id,
    user_id: j.user_id,
    interval: j.interval,
    amount_cents: Number(j.amount_cents),
    currency: j.currency,
    needs_approval: j.needs_approval,
    approved: stage.approved,
    origin: processorOrigin(ctx.config.PUBLIC_URL),
  }),
});
const processorDown = () => new ApiError(503, 'Payment processor unavailable', 'The payment could not be started; please try again.');

/**
 * POST /communities/{id}/join/paid. With approval: a join request and a SetupIntent that saves
 * the card (nothing is charged until a leader approves). Without: the subscription, whose first
 * invoice the caller pays with the answered secret (a member once the invoice is paid). An open
 * request of the same kind answers its secret again (the processor calls are idempotent by the
 * request's id), so a client that lost it can resume; one waiting for a decision is 409.
 */
export async function joinPaid(ctx: AppContext, actor: Actor, idOrSlug: string, interval: Interval) {
  const c = await repo.findCommunity(ctx.db, idOrSlug);
  if (!c) throw notFound('Community');
  if (interval !== c.interval) throw badRequest(`This community is billed every ${c.interval}`, { code: 'INTERVAL_NOT_OFFERED', allowed: [c.interval] });
  const m = await repo.membership(ctx.db, c.id, actor.userId);
  if (m?.status === 'active') throw new ApiError(409, 'Conflict', 'You are already a member of this community', { code: 'ALREADY_MEMBER' });
  const approval = needsApproval(c);
  let join = await repo.openJoin(ctx.db, c.id, actor.userId);
  if (join && !['requires_payment_method', 'pending_payment'].includes(join.status)) {
    throw new ApiError(409, 'Conflict', 'Your request to join is waiting for a decision', { code: 'JOIN_PENDING', join_id: join.id, status: join.status });
  }
  join ??= await repo
    .insertJoin(ctx.db, {
      community_id: c.id,
      user_id: actor.userId,
      interval,
      amount_cents: c.price_cents,
      currency: c.currency,
      needs_approval: approval,
      status: approval ? 'requires_payment_method' : 'pending_payment',
    })
    .catch(async (err) => {
      // Two joins at once: the unique open-request index lets one in; answer that one.
      if ((err as { code?: string }).code !== '23505') throw err;
      return (await repo.openJoin(ctx.db, c.id, actor.userId))!;
    });
  const key = `community-join:${join.id}`;
  try {
    if (join.needs_approval) {
      const si = await ctx.payments.createSetupIntent({ email: actor.email, metadata: metadataOf(ctx, join), idempotencyKey: key });
      await repo.updateJoin(ctx.db, join.id, { processor_setup_intent_id: si.id, processor_customer_id: si.customer });
      return { data: { join_id: join.id, status: join.status, intent_type: 'setup' as const, client_secret: si.client_secret } };
    }
    const sub = await ctx.payments.createSubscription({
      email: actor.email,
      product_name: `Membership: ${c.name}`,
      amount_cents: join.amount_cents,
      currency: join.currency,
      interval: join.interval,
      metadata: metadataOf(ctx, join),
      idempotencyKey: key,
    });
    await repo.updateJoin(ctx.db, join.id, { processor_subscription_id: sub.id, processor_customer_id: sub.customer });
    if (!sub.client_secret) throw new Error(`subscription ${sub.id} answered no payment secret`);
    return { data: { join_id: join.id, status: join.status, intent_type: 'payment' as const, client_secret: sub.client_secret } };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    ctx.log.error({ err: (err as Error).message, joinId: join.id }, 'processor call for a community join failed');
    throw processorDown();
  }
}

/**
 * A leader approves: the subscription is created on the saved card, which the processor charges
 * at once (the webhook's `invoice.paid` makes the member). The request is moved to `approved`
 * first and committed, so no row lock is held across the processor call (and a second approval
 * is 409); a failed call puts it back.
 */
export async function approve(ctx: AppContext, c: CommunityRow, leader: Actor, requestId: string) {
  const join = await ctx.db.transaction(async (trx) => {
    const j = await repo.lockJoin(trx, requestId);
    if (!j || j.community_id !== c.id) throw notFound('Join request');
    if (j.status === 'requires_payment_method') {
      throw new ApiError(409, 'Conflict', 'The card for this request has not been saved yet', { code: 'PAYMENT_METHOD_PENDING', status: j.status });
    }
    if (j.status !== 'pending_approval' || !j.processor_payment_method_id) {
      throw new ApiError(409, 'Conflict', `This request is ${j.status}`, { code: 'JOIN_NOT_PENDING', status: j.status });
    }
    await repo.updateJoin(trx, j.id, { status: 'approved', decided_by: leader.userId, decided_at: trx.fn.now() as unknown as Date });
    return j;
  });
  try {
    const sub = await ctx.payments.createSubscription({
      customer: join.processor_customer_id,
      default_payment_method: join.processor_payment_method_id,
      product_name: `Membership: ${c.name}`,
      amount_cents: join.amount_cents,
      currency: join.currency,
      interval: join.interval,
      // Marked approved: a replayed invoice of it proves a leader said yes (communities.rebuild.ts).
      metadata: metadataOf(ctx, join, { approved: true }),
      idempotencyKey: `community-join:${join.id}:subscription`,
    });
    await ctx.db.transaction(async (trx) => {
      await repo.updateJoin(trx, join.id, { processor_subscription_id: sub.id });
      // Told only now: a failed processor call puts the request back to pending.
      await emit(trx, 'community.join_decided', { join_id: join.id, community_id: c.id, requester_user_id: join.user_id, decision: 'approved' });
    });
  } catch (err) {
    ctx.log.error({ err: (err as Error).message, joinId: join.id }, 'subscription for an approved community join failed');
    await repo.updateJoin(ctx.db, join.id, { status: 'pending_approval', decided_by: null, decided_at: null });
    throw processorDown();
  }
  return requestView(ctx, join.id);
}

/** A leader declines: the request ends and nothing is ever charged (the saved card is not used). */
export async function decline(ctx: AppContext, c: CommunityRow, leader: Actor, requestId: string) {
  await ctx.db.transaction(async (trx) => {
    const j = await repo.lockJoin(trx, requestId);
    if (!j || j.community_id !== c.id) throw notFound('Join request');
    if (j.status !== 'pending_approval' && j.status !== 'requires_payment_method') {
      throw new ApiError(409, 'Conflict', `This request is ${j.status}`, { code: 'JOIN_NOT_PENDING', status: j.status });
    }
    await repo.updateJoin(trx, j.id, { status: 'declined', decided_by: leader.userId, decided_at: trx.fn.now() as unknown as Date });
    await emit(trx, 'community.join_decided', { join_id: j.id, community_id: c.id, requester_user_id: j.user_id, decision: 'declined' });
  });
  return requestView(ctx, requestId);
}

function requestItem(r: any) {
  return {
    id: r.id,
    community_id: r.community_id,
    user: { id: r.user_id, name: r.user_name ?? null, avatar: r.user_avatar ?? null },
    interval: r.interval,
    amount_cents: Number(r.amount_cents),
    currency: 'USD' as const,
    status: r.status,
    decided_at: iso(r.decided_at),
    created_at: iso(r.created_at)!,
  };
}

async function requestView(ctx: AppContext, id: string) {
  return { data: requestItem(await repo.joinWithUser(ctx.db, id)) };
}

/** The leaders' queue, oldest first: requests with a saved card (default), or all open ones. */
export async function listRequests(ctx: AppContext, c: CommunityRow, q: { status: 'pending_approval' | 'requires_payment_method' | 'all_open'; limit: number; offset: number }) {
  const statuses: repo.JoinStatus[] = q.status === 'all_open' ? ['requires_payment_method', 'pending_approval'] : [q.status];
  const { rows, total } = await repo.listJoins(ctx.db, c.id, statuses, q.limit, q.offset);
  return { data: rows.map(requestItem), pagination: { limit: q.limit, offset: q.offset, total } };
}
