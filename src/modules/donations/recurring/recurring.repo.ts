import type { Knex } from 'knex';
import type { Db } from '../../../db/knex';

type Q = Db | Knex.Transaction;

export type RecurringStatus = 'incomplete' | 'active' | 'paused' | 'past_due' | 'canceled';
export type CanceledBy = 'donor' | 'campaign' | 'processor' | 'erasure' | 'checkout';

/** Statuses in which a monthly gift is still giving (recurring_donor_count counts their donors). */
export const LIVE: readonly RecurringStatus[] = ['active', 'paused', 'past_due'];

export interface RecurringGiftRow {
  id: string;
  fundraiser_id: string;
  donor_user_id: string | null;
  donor_email: string | null;
  donor_name: string | null;
  anonymous: boolean;
  amount_cents: number;
  tip_cents: number;
  currency: string;
  interval: 'month';
  status: RecurringStatus;
  locale: string;
  processor_checkout_session_id: string | null;
  processor_subscription_id: string | null;
  processor_customer_id: string | null;
  first_donation_id: string | null;
  next_payment_at: Date | null;
  started_at: Date | null;
  canceled_at: Date | null;
  cancel_reason: string | null;
  canceled_by: CanceledBy | null;
  last_failed_invoice_id: string | null;
  subscription_event_at: Date | null;
  sync_version: number;
  synced_version: number;
  created_at: Date;
}

function toRow(r: Record<string, any> | undefined): RecurringGiftRow | undefined {
  if (!r) return undefined;
  return { ...r, amount_cents: Number(r.amount_cents), tip_cents: Number(r.tip_cents) } as RecurringGiftRow;
}

export async function insert(db: Q, row: Record<string, unknown>): Promise<RecurringGiftRow> {
  const [r] = await db('recurring_gifts').insert(row).returning('*');
  return toRow(r)!;
}

export async function find(db: Q, id: string, forUpdate = false): Promise<RecurringGiftRow | undefined> {
  const q = db('recurring_gifts').where({ id });
  if (forUpdate) q.forUpdate();
  return toRow(await q.first());
}

export async function findBySubscription(db: Q, subscriptionId: string): Promise<RecurringGiftRow | undefined> {
  return toRow(await db('recurring_gifts').where({ processor_subscription_id: subscriptionId }).first());
}

export async function update(db: Q, id: string, patch: Record<string, unknown>): Promise<RecurringGiftRow> {
  const [r] = await db('recurring_gifts').where({ id }).update({ ...patch, updated_at: db.fn.now() }).returning('*');
  return toRow(r)!;
}

/** A change the processor must learn of: the next sync call carries it (claim, call, confirm). */
export async function updateForSync(db: Q, id: string, patch: Record<string, unknown>): Promise<RecurringGiftRow> {
  return update(db, id, { ...patch, sync_version: db.raw('sync_version + 1') });
}

/** Confirms that the processor holds `version` (an older confirmation arriving late changes nothing). */
export async function markSynced(db: Q, id: string, version: number): Promise<void> {
  await db('recurring_gifts').where({ id }).andWhere('synced_version', '<', version).update({ synced_version: version });
}

/** A donor's monthly gifts that ever started (never-paid checkouts are not theirs to manage), newest first. */
export async function listStartedForDonor(db: Q, userId: string): Promise<RecurringGiftRow[]> {
  const rows = await db('recurring_gifts').where({ donor_user_id: userId }).whereNotNull('started_at').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  return rows.map((r) => toRow(r)!);
}

/** The monthly gifts of a campaign still giving, or still waiting for their first payment. */
export async function openForCampaign(db: Q, fundraiserId: string): Promise<RecurringGiftRow[]> {
  const rows = await db('recurring_gifts').where({ fundraiser_id: fundraiserId }).whereNot({ status: 'canceled' }).orderBy('created_at');
  return rows.map((r) => toRow(r)!);
}

/** Distinct donors (the account, else the address, else the gift) of a campaign's live monthly gifts. */
export async function liveDonorCount(db: Q, fundraiserId: string): Promise<number> {
  const r = await db('recurring_gifts')
    .where({ fundraiser_id: fundraiserId })
    .whereIn('status', LIVE as RecurringStatus[])
    .first(db.raw('count(distinct coalesce(donor_user_id::text, lower(donor_email), id::text))::int as n'));
  return Number(r?.n ?? 0);
}

/** Gifts whose change the processor has not confirmed (the sync job's repair list). */
export async function unsynced(db: Q, limit = 100): Promise<string[]> {
  const rows = await db('recurring_gifts').whereRaw('sync_version > synced_version').whereNotNull('processor_subscription_id').limit(limit).select('id');
  return rows.map((r) => r.id as string);
}
