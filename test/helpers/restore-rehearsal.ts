import type { Config } from '../../src/config';
import { createContext } from '../../src/create-context';
import { createDb, type Db } from '../../src/db/knex';
import { createLogger } from '../../src/infra/logger';
import { HANDLED_EVENT_TYPES, type PaymentEvent } from '../../src/integrations/payments';
import { collected } from '../../src/modules';
import { processEvent } from '../../src/modules/webhooks';
import { closeDb, type TestApp } from './app';
import { serverSql, serverUrlOf } from './db-copies';
import { deliver, stripeEvent } from './stripe';

/**
 * What the restore rehearsals share (things started after a backup, rebuilt by recover-since): the
 * processor's event list, the database copies standing for the backup, and the storm replay.
 */

type Obj = Record<string, any>;

/** `prefix[key]=value` form fields as an object (how the SDK sends metadata). */
export function mapOf(form: URLSearchParams, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of form) if (k.startsWith(`${prefix}[`) && k.endsWith(']') && !k.slice(prefix.length + 1, -1).includes('[')) out[k.slice(prefix.length + 1, -1)] = v;
  return out;
}

/** The processor's event list, newest first as Stripe lists it, and `happen`: an event is listed and delivered to `app()`. */
export function processorEvents(app: () => TestApp) {
  const listed: Obj[] = [];
  async function happen(type: string, object: Obj) {
    const e = stripeEvent(type, object);
    listed.unshift(e);
    const res = await deliver(app(), e);
    if (res.status !== 200) throw new Error(`${type} answered ${res.status} ${JSON.stringify(res.body)}`);
  }
  return { listed, happen };
}

/** Databases on the test's server standing for backups: made by `backup`, opened on first use, closed and dropped by `dropAll`. */
export function databaseCopies(names: string[]) {
  const open = new Map<string, Db>();
  return {
    /**
     * The backup: `current` stops (Postgres copies a database only while nobody is connected to
     * it), each copy is made of the test's database as it is now, and `restart` starts the service
     * again; answers the new service and the backup's time.
     */
    async backup(current: TestApp, restart: () => TestApp): Promise<{ app: TestApp; at: Date }> {
      await current.ctx.jobs.stop();
      await closeDb();
      const template = new URL(process.env.TEST_DATABASE_URL!).pathname.slice(1);
      for (const name of names) await serverSql(`create database "${name}" template "${template}"`);
      return { at: new Date(), app: restart() };
    },
    dbOf(name: string): Db {
      if (!open.has(name)) open.set(name, createDb(serverUrlOf(name), { max: 4 }));
      return open.get(name)!;
    },
    async dropAll(): Promise<void> {
      await Promise.all([...open.values()].map((db) => db.destroy()));
      for (const name of names) await serverSql(`drop database if exists "${name}" with (force)`);
    },
  };
}

/**
 * The processor's events since `since` replayed on `db` shuffled, three times each and four at
 * once (a storm of duplicates in any order); answers each delivery's outcome.
 */
export async function stormReplay(db: Db, config: Config, since: Date): Promise<string[]> {
  const ctx = createContext({ config, db, log: createLogger('silent') });
  const events: PaymentEvent[] = [];
  for await (const e of ctx.payments.listEventsSince(since, HANDLED_EVENT_TYPES)) events.push(e, e, e);
  for (let i = events.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [events[i], events[j]] = [events[j]!, events[i]!];
  }
  const queue = [...events];
  const outcomes: string[] = [];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let e = queue.shift(); e; e = queue.shift()) outcomes.push(await processEvent(ctx, collected.webhookHandlers, e));
    }),
  );
  return outcomes;
}
