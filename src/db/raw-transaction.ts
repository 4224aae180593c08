import type { Knex } from 'knex';
import { RAW_TRANSACTION, type PgConn, type RawTransactionState } from '../infra/query-rows';

// knex's own constructor of a knex object over a client (what its transactions are built with);
// not part of its typings.
const makeKnex = require('knex/lib/knex-builder/make-knex') as (client: Knex.Client) => Knex;

/** knex's bound on a ROLLBACK, kept: a connection that does not answer one goes back no further. */
const ROLLBACK_TIMEOUT_MS = 5000;

interface State extends RawTransactionState {
  /** The knex object over this connection, made the first time code asks for more than queryRows. */
  knex?: Knex;
  client?: Knex.Client;
  execution?: { promise: Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void };
  /** How it ended, for an executionPromise first asked for afterwards. */
  ended?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

type Around = <T>(trx: Knex.Transaction, run: () => Promise<T>) => Promise<T>;
const arounds = new WeakMap<Knex, Around>();

/**
 * Runs each raw transaction of `db` inside `around`: what a wrapper of `db.transaction` sees of
 * knex's transactions (the tests' guard against processor calls inside a transaction uses both).
 */
export function aroundRawTransactions(db: Knex, around: Around): void {
  arounds.set(db, around);
}

/**
 * A transaction of the default isolation on a connection from `db`'s pool, begun and ended with
 * plain BEGIN / COMMIT / ROLLBACK on the pg connection instead of knex's transaction machinery
 * (its per-transaction knex object, promise chains and runner were a large part of a webhook
 * settlement's CPU). What `run` receives is still a Knex.Transaction to every caller:
 *
 * - queryRows runs on the connection directly (the hot statements);
 * - anything else (a query builder, raw, fn, a nested transaction, which knex turns into a
 *   savepoint) goes to a knex object made on first use over a client bound to this connection,
 *   as knex's own transactions are: the same SQL on the same connection, refused once ended;
 * - isCompleted and executionPromise behave as knex's (resolved after COMMIT, rejected after a
 *   rollback); commit and rollback are refused: the transaction ends when `run` settles.
 *
 * The pool, its acquire timeout and its per-connection setup (the SET LOCAL statement timeout
 * through a transaction-mode pooler, db/pooled-timeouts.ts, which sees this BEGIN like knex's)
 * are knex's, untouched. A failed `run` rolls back and rethrows its error; a connection whose
 * ROLLBACK fails or hangs is marked broken so the pool destroys it instead of lending it again.
 */
export async function rawTransaction<T>(db: Knex, run: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const conn = (await db.client.acquireConnection()) as PgConn;
  const state: State = { db, conn, done: false };
  try {
    await statement(state, 'BEGIN;');
  } catch (err) {
    end(state, { ok: false, error: err });
    throw err;
  }
  let value: T;
  try {
    const trx = transactor(state);
    const around = arounds.get(db);
    value = await (around ? around(trx, () => run(trx)) : run(trx));
  } catch (err) {
    state.done = true;
    await rollback(state);
    end(state, { ok: false, error: err });
    throw err;
  }
  state.done = true;
  try {
    await statement(state, 'COMMIT;');
  } catch (err) {
    // A failed COMMIT has ended the transaction already (rolled back): nothing more to send.
    end(state, { ok: false, error: err });
    throw err;
  }
  end(state, { ok: true, value });
  return value;
}

/** BEGIN / COMMIT / ROLLBACK, told to the `query` listeners as knex tells them. */
function statement(state: State, sql: string): Promise<unknown> {
  if (state.db.listenerCount('query') > 0) state.db.client.emit('query', { sql, bindings: [] });
  return state.conn.query(sql);
}

async function rollback(state: State): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`ROLLBACK not answered in ${ROLLBACK_TIMEOUT_MS} ms`)), ROLLBACK_TIMEOUT_MS);
  });
  try {
    await Promise.race([statement(state, 'ROLLBACK'), late]);
  } catch (err) {
    // knex's pool validates a connection before lending it: this mark makes it destroy this one.
    (state.conn as { __knex__disposed?: unknown }).__knex__disposed = err;
  } finally {
    clearTimeout(timer);
  }
}

/** Back to the pool, then executionPromise settles (a goal's recheck runs after COMMIT, on a connection of its own). */
function end(state: State, how: NonNullable<State['ended']>): void {
  state.done = true;
  state.ended = how;
  void state.db.client.releaseConnection(state.conn);
  if (how.ok) state.execution?.resolve(how.value);
  else state.execution?.reject(how.error);
}

function executionPromise(state: State): Promise<unknown> {
  if (!state.execution) {
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise((res, rej) => ((resolve = res), (reject = rej)));
    // Like knex's: a rollback rejects it, and nobody has to listen.
    promise.catch(() => undefined);
    state.execution = { promise, resolve, reject };
    if (state.ended) {
      if (state.ended.ok) resolve(state.ended.value);
      else reject(state.ended.error);
    }
  }
  return state.execution.promise;
}

/**
 * A client like the one knex makes for each transaction: the root client's settings, this
 * connection for every query (never released by a query), queries refused once the transaction
 * ended, its events passed on to the root client.
 */
function boundClient(state: State): Knex.Client {
  if (state.client) return state.client;
  const root = state.db.client as Knex.Client & Record<string, any>;
  const client = Object.create(Object.getPrototypeOf(root)) as Knex.Client & Record<string, any>;
  for (const k of ['version', 'config', 'driver', 'connectionSettings', 'valueForUndefined', 'logger']) client[k] = root[k];
  client.transacting = true;
  for (const event of ['start', 'query', 'query-error', 'query-response']) client.on(event, (...args: unknown[]) => root.emit(event, ...args));
  const refuseWhenEnded = (base: (...a: any[]) => Promise<unknown>) =>
    function (this: unknown, ...args: any[]) {
      if (state.done) return Promise.reject(new Error('Transaction query already complete'));
      return base.apply(this, args);
    };
  client.query = refuseWhenEnded(root.query);
  client.stream = refuseWhenEnded(root.stream);
  client.acquireConnection = () => Promise.resolve(state.conn);
  client.releaseConnection = () => Promise.resolve();
  return (state.client = client);
}

const knexOf = (state: State): Knex => (state.knex ??= makeKnex(boundClient(state)));

type Target = ((table?: string, options?: unknown) => unknown) & { [RAW_TRANSACTION]: State };

const refuse = (what: string) => () => {
  throw new Error(`${what}: a raw transaction ends when its function settles`);
};

// One handler for every raw transaction: its state rides on the target.
const handler: ProxyHandler<Target> = {
  get(target, key) {
    const state = target[RAW_TRANSACTION];
    switch (key) {
      case RAW_TRANSACTION:
        return state;
      case 'isTransaction':
        return true;
      case 'isCompleted':
        return () => state.done;
      case 'executionPromise':
        return executionPromise(state);
      case 'userParams':
        return (state.db as { userParams?: unknown }).userParams ?? {};
      case 'client':
        return boundClient(state);
      case 'savepoint':
        return (container: unknown, config?: unknown) => (knexOf(state).transaction as any)(container, config);
      case 'commit':
      case 'rollback':
        return refuse(String(key));
      default:
        return Reflect.get(knexOf(state), key);
    }
  },
};

function transactor(state: State): Knex.Transaction {
  const target = ((table?: string, options?: unknown) => (knexOf(state) as any)(table, options)) as Target;
  target[RAW_TRANSACTION] = state;
  return new Proxy(target, handler) as unknown as Knex.Transaction;
}
