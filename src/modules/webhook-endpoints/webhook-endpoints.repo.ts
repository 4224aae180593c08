import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export interface EndpointRow {
  id: string;
  user_id: string;
  organization_id: string | null;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  secret: string;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

/** Whose events an endpoint receives: an organization's, or one person's own campaigns and payouts. */
export type Owner = { kind: 'user'; id: string } | { kind: 'organization'; id: string };

export async function insertEndpoint(db: Q, row: Pick<EndpointRow, 'user_id' | 'organization_id' | 'url' | 'events' | 'description' | 'secret'>): Promise<EndpointRow> {
  const [r] = await db('webhook_endpoints').insert(row).returning('*');
  return r;
}

export function endpointById(db: Q, id: string): Promise<EndpointRow | undefined> {
  return db('webhook_endpoints').where({ id }).first();
}

/** The caller's own endpoints and those of the given organizations, newest first. */
export async function listVisible(db: Q, userId: string, orgIds: string[], limit: number, offset: number) {
  const base = () =>
    db('webhook_endpoints').where((w) => {
      w.where({ user_id: userId }).whereNull('organization_id');
      if (orgIds.length > 0) w.orWhereIn('organization_id', orgIds);
    });
  const [rows, [{ n }]] = await Promise.all([
    base().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit).offset(offset).select('*'),
    base().count({ n: '*' }),
  ]);
  return { rows: rows as EndpointRow[], total: Number(n) };
}

export async function updateEndpoint(db: Q, id: string, patch: Partial<Pick<EndpointRow, 'url' | 'events' | 'description' | 'status' | 'secret'>>): Promise<EndpointRow> {
  const [r] = await db('webhook_endpoints').where({ id }).update({ ...patch, updated_at: db.fn.now() }).returning('*');
  return r;
}

export async function deleteEndpoint(db: Q, id: string): Promise<void> {
  await db('webhook_endpoints').where({ id }).delete();
}

/** Enabled endpoints of an owner that take this event type (or every type). */
export function subscribedEndpoints(db: Q, owner: Owner, type: string): Promise<EndpointRow[]> {
  const q = db('webhook_endpoints').where({ status: 'enabled' });
  if (owner.kind === 'organization') q.where({ organization_id: owner.id });
  else q.where({ user_id: owner.id }).whereNull('organization_id');
  return q.whereRaw('(events && ?::text[])', [[type, '*']]).select('*');
}

/** One delivery per (endpoint, event): a repeated fan-out finds the row already there. */
export async function insertDelivery(db: Q, row: Pick<DeliveryRow, 'endpoint_id' | 'event_id' | 'event_type' | 'payload'>): Promise<DeliveryRow | undefined> {
  const [r] = await db('webhook_deliveries').insert({ ...row, next_attempt_at: db.fn.now() }).onConflict(['endpoint_id', 'event_id']).ignore().returning('*');
  return r;
}

export function deliveryById(db: Q, id: string): Promise<DeliveryRow | undefined> {
  return db('webhook_deliveries').where({ id }).first();
}

export async function listDeliveries(db: Q, endpointId: string, limit: number, offset: number) {
  const base = () => db('webhook_deliveries').where({ endpoint_id: endpointId });
  const [rows, [{ n }]] = await Promise.all([
    base().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit).offset(offset).select('*'),
    base().count({ n: '*' }),
  ]);
  return { rows: rows as DeliveryRow[], total: Number(n) };
}

/**
 * Records attempt number `attempt` of a delivery, only if it is still the next one (a duplicate
 * job, or one overtaken by a manual retry, changes nothing). Answers whether it was recorded.
 */
export async function recordAttempt(
  db: Q,
  id: string,
  attempt: number,
  outcome: { status: DeliveryRow['status']; statusCode: number | null; error: string | null; nextAt: Date | null },
): Promise<boolean> {
  const n = await db('webhook_deliveries')
    .where({ id, attempts: attempt - 1, status: 'pending' })
    .update({
      attempts: attempt,
      status: outcome.status,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      next_attempt_at: outcome.nextAt,
      updated_at: db.fn.now(),
    });
  return n > 0;
}

/** Makes a delivery due again now (manual retry); answers the attempt number to run next. */
export async function reopenDelivery(db: Q, id: string): Promise<number> {
  const [r] = await db('webhook_deliveries')
    .where({ id })
    .update({ status: 'pending', next_attempt_at: db.fn.now(), updated_at: db.fn.now() })
    .returning('attempts');
  return Number(r.attempts) + 1;
}

/** Privacy erasure requested: every endpoint the account made stops receiving events at once. */
export async function disableAllForUser(db: Knex | Knex.Transaction, userId: string): Promise<number> {
  return db('webhook_endpoints').where({ user_id: userId, status: 'enabled' }).update({ status: 'disabled', updated_at: db.fn.now() });
}
