import type { Knex } from 'knex';
import type { AppContext } from '../context';
import { claimInbox, enqueue, insertAndEnqueue } from '../infra/jobs';
import { causedEventId } from './caused-id';
import type { EventMap, EventType } from './types';

export type { EventMap, EventType } from './types';
export { causedEventId } from './caused-id';

/**
 * Side effects are events, not calls. `emit(trx, type, payload)` writes the event in the
 * transaction of the change that causes it (a rollback emits nothing, a crash loses nothing);
 * a dispatch job (graphile-worker) then fans it out to one job per subscriber, and each
 * subscriber's job runs in a transaction that also records `(subscriber, event_id)` in the
 * inbox (job_inbox, unique), so each subscriber reacts exactly once even when its job is retried.
 */
export const DISPATCH_QUEUE = 'events.dispatch';
const SUBSCRIBER_QUEUE_PREFIX = 'event:';

export interface EventMeta {
  eventId: string;
  type: EventType;
  createdAt: Date;
}

export type SubscriberHandler<T extends EventType> = (
  ctx: AppContext,
  payload: EventMap[T],
  trx: Knex.Transaction,
  meta: EventMeta,
) => Promise<void>;

export interface Subscriber {
  /** Unique and stable: it names the subscriber's queue, so renaming it strands queued work. */
  name: string;
  type: EventType;
  handle: SubscriberHandler<any>;
}

/** One subscriber: a module reacts to an event type (declared in the module's `*.events.ts`). */
export function on<T extends EventType>(type: T, name: string, handle: SubscriberHandler<T>): Subscriber {
  return { name, type, handle };
}

const INSERT_EVENT = 'insert into events (type, payload) values (?, ?) on conflict (id) do nothing returning id';
const INSERT_EVENT_WITH_ID = 'insert into events (id, type, payload) values (?, ?, ?) on conflict (id) do nothing returning id';

/**
 * `opts.causedBy`: the processor's id of the fact behind the event (see caused-id.ts): the event
 * then has a derived id instead of a random one, and emitting it again where it exists is a no-op.
 */
export async function emit<T extends EventType>(trx: Knex.Transaction, type: T, payload: EventMap[T], opts: { causedBy?: string } = {}): Promise<string> {
  const id = opts.causedBy ? causedEventId(opts.causedBy, type) : undefined;
  // The outbox row and its dispatch job in one statement (a settlement's hot path), from fixed texts.
  const json = JSON.stringify(payload);
  const insert = id ? { sql: INSERT_EVENT_WITH_ID, bindings: [id, type, json] } : { sql: INSERT_EVENT, bindings: [type, json] };
  const inserted = await insertAndEnqueue(trx, insert, DISPATCH_QUEUE, 'event_id');
  return (inserted ?? id) as string;
}

/**
 * Deletes events older than `days` that no job refers to any more (dispatch and every subscriber
 * ran); answers how many. For the periodic prune task.
 */
export async function pruneDeliveredEvents(db: Knex, days: number): Promise<number> {
  const r = await db.raw(
    `delete from events e where e.created_at < now() - make_interval(days => ?)
      and not exists (select 1 from graphile_worker._private_jobs j where j.payload->>'event_id' = e.id::text)`,
    [days],
  );
  return r.rowCount ?? 0;
}

/** Registers the dispatcher and every subscriber's queue on the context's worker. */
export function registerSubscribers(ctx: AppContext, subscribers: Subscriber[]): void {
  const names = new Set<string>();
  for (const s of subscribers) {
    if (names.has(s.name)) throw new Error(`duplicate event subscriber name: ${s.name}`);
    names.add(s.name);
  }
  ctx.jobs.register(DISPATCH_QUEUE, async (payload) => {
    const eventId = String(payload.event_id);
    await ctx.db.transaction(async (trx) => {
      if (!(await claimInbox(trx, DISPATCH_QUEUE, eventId))) return;
      const event = await trx('events').where({ id: eventId }).first('id', 'type');
      if (!event) return;
      for (const s of subscribers) {
        if (s.type !== event.type) continue;
        await enqueue(trx, SUBSCRIBER_QUEUE_PREFIX + s.name, { event_id: event.id }, { maxAttempts: 10 });
      }
    });
  });
  for (const s of subscribers) {
    ctx.jobs.register(SUBSCRIBER_QUEUE_PREFIX + s.name, async (payload) => {
      const eventId = String(payload.event_id);
      await ctx.db.transaction(async (trx) => {
        if (!(await claimInbox(trx, s.name, eventId))) return;
        const event = await trx('events').where({ id: eventId }).first();
        if (!event) return;
        await s.handle(ctx, event.payload, trx, { eventId: event.id, type: event.type, createdAt: event.created_at });
      });
    });
  }
}
