import type { Knex } from 'knex';

// Statements of fixed text straight through pg, past knex's builder and runner (db/knex.ts re-exports them).

const positional = new Map<string, string>();

/** `?` placeholders (outside quoted literals) as pg's $1..$n; memoised, the hot statements are few. */
export function toPositional(sql: string): string {
  let out = positional.get(sql);
  if (out === undefined) {
    let n = 0;
    out = sql.replace(/'(?:[^']|'')*'|\?/g, (m) => (m === '?' ? `$${++n}` : m));
    if (positional.size < 1000) positional.set(sql, out);
  }
  return out;
}

export interface PgConn {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * What a transaction opened on a pooled pg connection without knex (db/raw-transaction.ts) hands
 * queryRows under this key: its connection, whether it has ended, and the knex whose `query`
 * listeners hear its statements. queryRows runs on it directly, with no knex object in between.
 */
export const RAW_TRANSACTION = Symbol('rawTransaction');

export interface RawTransactionState {
  db: Knex;
  conn: PgConn;
  done: boolean;
}

/**
 * One statement straight through pg: the hot public reads and a settlement's statements skip
 * knex's builder and runner, a visible share of their CPU. `sql` uses `?` placeholders like db.raw
 * (no `??` identifiers, no jsonb `?` operators). On a pooled connection, or in a transaction on
 * the transaction's own connection (so in the transaction, under its locks). knex's `query`
 * event is still emitted when someone listens (tests, the bench's EXPLAIN pass).
 */
export function queryRows<T = Record<string, unknown>>(db: Knex | Knex.Transaction, sql: string, bindings: unknown[]): Promise<T[]> {
  const text = toPositional(sql);
  // In a transaction: no async frame of its own (a settlement runs a dozen of these).
  const raw = (db as { [RAW_TRANSACTION]?: RawTransactionState })[RAW_TRANSACTION];
  if (raw) return onRawTransaction(raw, text, bindings).then(rowsOf<T>);
  if ((db as Knex.Transaction).isTransaction) return onTransaction(db as Knex.Transaction, text, bindings).then(rowsOf<T>);
  return onPool<T>(db, text, bindings);
}

const rowsOf = <T>(r: { rows: unknown[] }) => r.rows as T[];

async function onPool<T>(db: Knex, text: string, bindings: unknown[]): Promise<T[]> {
  if (db.listenerCount('query') > 0) db.emit('query', { sql: text, bindings, method: 'raw' });
  const conn = (await db.client.acquireConnection()) as PgConn;
  try {
    return (await conn.query(text, bindings)).rows as T[];
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/**
 * What knex's runner does for a transaction's statement, without its per-statement work: refuse
 * once the transaction ended, run on its connection, tell the `query` listeners (the transaction's
 * client passes the event to the transaction and to the root knex, as knex does).
 */
async function onTransaction(trx: Knex.Transaction, text: string, bindings: unknown[]): Promise<{ rows: unknown[] }> {
  if (trx.isCompleted()) throw new Error('Transaction query already complete');
  const client = trx.client as unknown as { acquireConnection(): Promise<PgConn>; emit(event: string, obj: unknown): boolean };
  const conn = await client.acquireConnection();
  client.emit('query', { sql: text, bindings, method: 'raw' });
  return conn.query(text, bindings);
}

/** The same for a transaction opened without knex: its connection is at hand. */
function onRawTransaction(t: RawTransactionState, text: string, bindings: unknown[]): Promise<{ rows: unknown[] }> {
  if (t.done) return Promise.reject(new Error('Transaction query already complete'));
  if (t.db.listenerCount('query') > 0) t.db.client.emit('query', { sql: text, bindings, method: 'raw' });
  return t.conn.query(text, bindings);
}
