import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

// Connected accounts at the processor, one per holder (a user or an organization).

export type OwnerType = 'user' | 'organization';
export type AccountStatus = 'onboarding' | 'active' | 'restricted';

export interface AccountRow {
  id: string;
  owner_type: OwnerType;
  owner_id: string;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  status: AccountStatus;
  synced_at: Date | null;
  created_at: Date;
}

const ACCOUNT_COLS = ['id', 'owner_type', 'owner_id', 'charges_enabled', 'payouts_enabled', 'details_submitted', 'status', 'synced_at', 'created_at'];

export async function accountsOf(db: Q, ownerType: OwnerType, ownerId: string): Promise<AccountRow[]> {
  return db('processor_accounts').where({ owner_type: ownerType, owner_id: ownerId }).orderBy('created_at').select(ACCOUNT_COLS);
}

export async function accountsOfOwners(db: Q, ownerType: OwnerType, ownerIds: string[]): Promise<AccountRow[]> {
  if (!ownerIds.length) return [];
  return db('processor_accounts').where({ owner_type: ownerType }).whereIn('owner_id', ownerIds).orderBy('created_at').select(ACCOUNT_COLS);
}

export async function accountById(db: Q, id: string, opts: { lock?: boolean } = {}): Promise<AccountRow | undefined> {
  const q = db('processor_accounts').where({ id }).first(ACCOUNT_COLS);
  if (opts.lock) q.forUpdate();
  return q;
}

/** Inserts the account row once; a concurrent or repeated onboarding finds the same row. */
export async function insertAccount(db: Q, row: Pick<AccountRow, 'id' | 'owner_type' | 'owner_id'> & Partial<AccountRow>): Promise<void> {
  await db('processor_accounts').insert(row).onConflict('id').ignore();
}

export async function updateAccount(db: Q, id: string, patch: Partial<AccountRow>): Promise<void> {
  await db('processor_accounts').where({ id }).update({ ...patch, updated_at: db.fn.now() });
}

/** Every active connected account (the periodic sweep's work list). */
export async function activeAccountIds(db: Q): Promise<string[]> {
  const rows: Array<{ id: string }> = await db('processor_accounts').where({ status: 'active' }).select('id');
  return rows.map((r) => r.id);
}

/** Who holds a connected account (a user or an organization); null for an unknown account. */
export async function accountHolder(db: Q, accountId: string): Promise<{ type: OwnerType; id: string } | null> {
  const r = await db('processor_accounts').where({ id: accountId }).first('owner_type', 'owner_id');
  return r ? { type: r.owner_type as OwnerType, id: r.owner_id as string } : null;
}
