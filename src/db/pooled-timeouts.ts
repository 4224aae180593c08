import type pg from 'pg';

/**
 * Statement timeouts through a transaction-mode pooler. PgBouncer refuses `statement_timeout` as
 * a startup parameter and hands each transaction whichever server connection is free, so a
 * session `SET` would leak into other clients' transactions. Instead every transaction carries
 * the timeout with `SET LOCAL`: a `BEGIN` gets it in the same round trip (one simple-protocol
 * packet), and a statement outside a transaction becomes `BEGIN; SET LOCAL ...`, the statement,
 * `COMMIT` (two extra round trips to the pooler, only in pooled mode). A transaction may still
 * set its own, shorter limit afterwards (search does, with set_config(..., true)).
 */

const BEGIN = /^\s*(begin|start\s+transaction)\b/i;
// ROLLBACK TO SAVEPOINT keeps the transaction open.
const END = /^\s*(commit|end|abort|rollback(?!\s+to\b))\b/i;

type Callback = (err: Error | null, res?: unknown) => void;
type QueryFn = (...args: unknown[]) => unknown;

export function timeoutEachTransaction(conn: pg.Client, ms: number): void {
  const original = conn.query.bind(conn) as unknown as QueryFn;
  const run = (config: pg.QueryConfig) => original(config) as Promise<pg.QueryResult | pg.QueryResult[]>;
  const setLocal = `set local statement_timeout = ${Math.max(1, Math.floor(ms))}`;
  let inTransaction = false;

  const wrapped = async (config: pg.QueryConfig): Promise<unknown> => {
    const text = config.text;
    if (BEGIN.test(text) && !config.values?.length) {
      const res = await run({ ...config, text: `${text.trim().replace(/;+$/, '')}; ${setLocal}` });
      inTransaction = true;
      return Array.isArray(res) ? res[0] : res;
    }
    if (END.test(text)) {
      try {
        return await run(config);
      } finally {
        inTransaction = false;
      }
    }
    if (inTransaction) return run(config);
    await run({ text: `begin; ${setLocal}` });
    let res: unknown;
    try {
      res = await run(config);
    } catch (err) {
      await run({ text: 'rollback' }).catch(() => undefined);
      throw err;
    }
    await run({ text: 'commit' });
    return res;
  };

  (conn as unknown as { query: QueryFn }).query = (arg: unknown, values?: unknown, cb?: unknown) => {
    // A Submittable (pg-query-stream, a cursor) is passed through untouched.
    if (arg && typeof (arg as { submit?: unknown }).submit === 'function') return original(arg, values, cb);
    let callback = cb as Callback | undefined;
    let vals = values as unknown[] | undefined;
    if (typeof values === 'function') {
      callback = values as Callback;
      vals = undefined;
    }
    const config: pg.QueryConfig = typeof arg === 'string' ? { text: arg, values: vals } : { ...(arg as pg.QueryConfig), values: vals ?? (arg as pg.QueryConfig).values };
    const promise = wrapped(config);
    if (!callback) return promise;
    promise.then(
      (res) => callback!(null, res),
      (err) => callback!(err as Error),
    );
    return undefined;
  };
}
