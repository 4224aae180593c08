import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { joinPublicUser } from '../idp';

type Q = Db | Knex.Transaction;

export type Interval = 'month' | 'year';
export type MemberRole = 'owner' | 'leader' | 'member';
export type JoinStatus =
  | 'requires_payment_method'
  | 'pending_approval'
  | 'approved'
  | 'pending_payment'
  | 'active'
  | 'declined'
  | 'payment_failed'
  | 'canceled';
export const OPEN_JOIN: JoinStatus[] = ['requires_payment_method', 'pending_approval', 'approved', 'pending_payment'];

export interface CommunityRow {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  is_private: boolean;
  requires_approval: boolean;
  price_cents: number;
  currency: string;
  interval: Interval;
  owner_user_id: string;
  created_at: Date;
}

export interface JoinRow {
  id: string;
  community_id: string;
  user_id: string;
  interval: Interval;
  amount_cents: number;
  currency: string;
  needs_approval: boolean;
  status: JoinStatus;
  processor_customer_id: string | null;
  processor_setup_intent_id: string | null;
  processor_payment_method_id: string | null;
  processor_subscription_id: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  activated_at: Date | null;
  created_at: Date;
}

export interface CodeRow {
  id: string;
  code_hash: string;
  attempts: number;
  expires_at: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

// ---- communities and members ----

export async function insertCommunity(db: Q, row: Omit<CommunityRow, 'id' | 'created_at' | 'currency'>): Promise<CommunityRow> {
  const [r] = await db('communities').insert(row).returning('*');
  return r;
}

export async function slugTaken(db: Q, slug: string): Promise<boolean> {
  return !!(await db('communities').where({ slug }).first('id'));
}

/** By id when the value is a uuid, else by slug; `lock` takes the row for the transaction. */
export async function findCommunity(db: Q, idOrSlug: string, opts: { lock?: boolean } = {}): Promise<CommunityRow | undefined> {
  const key = idOrSlug.toLowerCase();
  const q = db('communities').where(isUuid(key) ? { id: key } : { slug: key }).first('*');
  if (opts.lock) q.forUpdate();
  return q;
}

export async function memberCount(db: Q, communityId: string): Promise<number> {
  const r = await db('community_members').where({ community_id: communityId, status: 'active' }).first(db.raw('count(*)::int as n'));
  return Number(r?.n ?? 0);
}

export async function membership(db: Q, communityId: string, userId: string): Promise<{ role: MemberRole; status: 'active' | 'canceled' } | undefined> {
  return db('community_members').where({ community_id: communityId, user_id: userId }).first('role', 'status');
}

/** The member row made active (a lapsed member who pays again is a member again, same role). */
export async function upsertMember(db: Q, row: { community_id: string; user_id: string; role: MemberRole; join_id: string | null }): Promise<void> {
  await db('community_members')
    .insert({ ...row, status: 'active' })
    .onConflict(['community_id', 'user_id'])
    .merge({ status: 'active', join_id: row.join_id, updated_at: db.fn.now() });
}

/** A lapsed leader is a lapsed member: the role goes with the membership (paying again makes a plain member). */
export async function endMembership(db: Q, communityId: string, userId: string, joinId: string): Promise<void> {
  await db('community_members')
    .where({ community_id: communityId, user_id: userId, join_id: joinId })
    .whereIn('role', ['member', 'leader'])
    .update({ status: 'canceled', role: 'member', updated_at: db.fn.now() });
}

export async function lockMember(db: Q, communityId: string, userId: string): Promise<{ user_id: string; role: MemberRole; status: 'active' | 'canceled' } | undefined> {
  return db('community_members').where({ community_id: communityId, user_id: userId }).forUpdate().first('user_id', 'role', 'status');
}

export async function setMemberRole(db: Q, communityId: string, userId: string, role: 'leader' | 'member'): Promise<void> {
  await db('community_members').where({ community_id: communityId, user_id: userId }).whereNot('role', 'owner').update({ role, updated_at: db.fn.now() });
}

/** Who decides on join requests: the owner and the active leaders. */
export async function leaderIds(db: Q, communityId: string): Promise<string[]> {
  const rows = await db('community_members').where({ community_id: communityId, status: 'active' }).whereIn('role', ['owner', 'leader']).select('user_id');
  return rows.map((r: { user_id: string }) => r.user_id);
}

// ---- join requests ----

export async function insertJoin(db: Q, row: Pick<JoinRow, 'community_id' | 'user_id' | 'interval' | 'amount_cents' | 'currency' | 'needs_approval' | 'status'>): Promise<JoinRow> {
  const [r] = await db('community_joins').insert(row).returning('*');
  return r;
}

export async function openJoin(db: Q, communityId: string, userId: string): Promise<JoinRow | undefined> {
  return db('community_joins').where({ community_id: communityId, user_id: userId }).whereIn('status', OPEN_JOIN).first('*');
}

export async function lockJoin(db: Q, id: string): Promise<JoinRow | undefined> {
  return db('community_joins').where({ id }).forUpdate().first('*');
}

export async function lockJoinBySubscription(db: Q, subscriptionId: string): Promise<JoinRow | undefined> {
  return db('community_joins').where({ processor_subscription_id: subscriptionId }).forUpdate().first('*');
}

export async function updateJoin(db: Q, id: string, patch: Partial<JoinRow>): Promise<void> {
  await db('community_joins').where({ id }).update({ ...patch, updated_at: db.fn.now() });
}

export async function listJoins(db: Q, communityId: string, statuses: JoinStatus[], limit: number, offset: number) {
  const base = joinPublicUser(db('community_joins as j'), 'u', 'j.user_id').where('j.community_id', communityId).whereIn('j.status', statuses);
  const rows = await base
    .clone()
    .orderBy([{ column: 'j.created_at', order: 'asc' }, { column: 'j.id', order: 'asc' }])
    .limit(limit)
    .offset(offset)
    .select('j.*', 'u.name as user_name', 'u.avatar as user_avatar');
  const total = await base.clone().first(db.raw('count(*)::int as n'));
  return { rows, total: Number(total?.n ?? 0) };
}

export async function joinWithUser(db: Q, id: string) {
  return joinPublicUser(db('community_joins as j'), 'u', 'j.user_id').where('j.id', id).first('j.*', 'u.name as user_name', 'u.avatar as user_avatar');
}

// ---- payments into the fund ----

export async function paymentRecorded(db: Q, invoiceId: string): Promise<boolean> {
  return !!(await db('community_payments').where({ processor_invoice_id: invoiceId }).first('id'));
}

export async function insertPayment(
  db: Q,
  row: { community_id: string; join_id: string; processor_invoice_id: string; processor_payment_intent_id: string | null; amount_cents: number; fee_cents: number; currency: string; ledger_group_id: string; source_event_id: string },
): Promise<void> {
  await db('community_payments').insert(row);
}

export interface CommunityPaymentRow {
  id: string;
  community_id: string;
  join_id: string;
  amount_cents: number;
  refunded_cents: number;
  currency: string;
}

export async function lockPaymentByIntent(trx: Knex.Transaction, paymentIntentId: string): Promise<CommunityPaymentRow | undefined> {
  const r = await trx('community_payments').where({ processor_payment_intent_id: paymentIntentId }).forUpdate().first('id', 'community_id', 'join_id', 'amount_cents', 'refunded_cents', 'currency');
  return r ? { ...r, amount_cents: Number(r.amount_cents), refunded_cents: Number(r.refunded_cents) } : undefined;
}

export async function setPaymentRefunded(trx: Knex.Transaction, id: string, refundedCents: number): Promise<void> {
  await trx('community_payments').where({ id }).update({ refunded_cents: refundedCents });
}

// ---- withdrawal codes and withdrawals ----

export async function codesSince(db: Q, communityId: string, userId: string, since: Date): Promise<Date[]> {
  const rows = await db('community_withdrawal_codes')
    .where({ community_id: communityId, user_id: userId })
    .where('created_at', '>', since)
    .orderBy('created_at', 'asc')
    .select('created_at');
  return rows.map((r: any) => new Date(r.created_at));
}

/** A new code; every open one before it stops working. */
export async function replaceCode(trx: Knex.Transaction, row: { community_id: string; user_id: string; code_hash: string; expires_at: Date }): Promise<string> {
  await trx('community_withdrawal_codes')
    .where({ community_id: row.community_id, user_id: row.user_id })
    .whereNull('consumed_at')
    .whereNull('superseded_at')
    .update({ superseded_at: trx.fn.now() });
  const [r] = await trx('community_withdrawal_codes').insert(row).returning('id');
  return r.id;
}

/** The newest code still open (not used, not replaced), locked; its expiry and attempts are the caller's to judge. */
export async function lockOpenCode(trx: Knex.Transaction, communityId: string, userId: string): Promise<CodeRow | undefined> {
  return trx('community_withdrawal_codes')
    .where({ community_id: communityId, user_id: userId })
    .whereNull('consumed_at')
    .whereNull('superseded_at')
    .orderBy('created_at', 'desc')
    .forUpdate()
    .first('id', 'code_hash', 'attempts', 'expires_at');
}

export async function countFailedAttempt(trx: Knex.Transaction, id: string): Promise<number> {
  const [r] = await trx('community_withdrawal_codes').where({ id }).increment('attempts', 1).returning('attempts');
  return Number(r.attempts);
}

export async function consumeCode(trx: Knex.Transaction, id: string): Promise<void> {
  await trx('community_withdrawal_codes').where({ id }).update({ consumed_at: trx.fn.now() });
}

export async function insertWithdrawal(
  trx: Knex.Transaction,
  row: { community_id: string; user_id: string; amount_cents: number; currency: string; processor_account_id: string; processor_transfer_id: string; ledger_group_id: string; code_id: string },
) {
  const [r] = await trx('community_withdrawals').insert(row).returning(['id', 'community_id', 'amount_cents', 'currency', 'created_at']);
  return r;
}

export async function withdrawalByCode(db: Q, codeId: string) {
  return db('community_withdrawals').where({ code_id: codeId }).first('id', 'community_id', 'amount_cents', 'currency', 'created_at');
}

/** Deletes withdrawal codes expired over `graceDays` ago (the grace lets a late use still meet "expired", not "unknown"); answers how many. */
export async function pruneExpiredWithdrawalCodes(db: Q, graceDays: number): Promise<number> {
  return db('community_withdrawal_codes').where('expires_at', '<', db.raw('now() - make_interval(days => ?)', [graceDays])).del();
}
