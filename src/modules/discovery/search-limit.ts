import type { Knex } from 'knex';
import type { Response } from 'express';
import type { AppContext } from '../../context';
import { GateRefused, isQueryCanceled, OVERLOAD_RETRY_AFTER_S, poolMax, withStatementTimeout, WorkGate } from '../../db/gate';
import { ApiError } from '../../http/errors';

const gates = new WeakMap<AppContext, WorkGate>();

/**
 * The ranked-search gate of a process (one per app context). Searches may hold at most half the
 * database pool, whatever SEARCH_CONCURRENCY says, so detail reads and writes always find a connection.
 */
export function searchGate(ctx: AppContext): WorkGate {
  let gate = gates.get(ctx);
  if (!gate) {
    const c = ctx.config;
    const limit = Math.max(1, Math.min(c.SEARCH_CONCURRENCY, Math.floor(poolMax(ctx.db) / 2)));
    gate = new WorkGate(limit, c.SEARCH_QUEUE_MAX, c.SEARCH_QUEUE_TIMEOUT_MS);
    gates.set(ctx, gate);
  }
  return gate;
}

/**
 * Runs one ranked search through the gate, on one connection whose statements Postgres cancels
 * after SEARCH_STATEMENT_TIMEOUT_MS. A full queue, a wait past SEARCH_QUEUE_TIMEOUT_MS or a
 * cancelled statement answer 503 with Retry-After: overload is the server's state, not the request's fault.
 */
export async function boundedSearch<T>(ctx: AppContext, res: Response, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const refuse = (message: string, code: string) => {
    res.setHeader('Retry-After', String(OVERLOAD_RETRY_AFTER_S));
    return new ApiError(503, 'Service unavailable', message, { code, retryAfter: OVERLOAD_RETRY_AFTER_S });
  };
  let release: () => void;
  try {
    release = await searchGate(ctx).acquire();
  } catch (err) {
    if (err instanceof GateRefused) throw refuse('Too many searches are running; retry in a moment', 'SEARCH_BUSY');
    throw err;
  }
  try {
    return await withStatementTimeout(ctx.db, ctx.config.SEARCH_STATEMENT_TIMEOUT_MS, work);
  } catch (err) {
    if (isQueryCanceled(err)) throw refuse('The search took too long; retry in a moment or narrow it', 'SEARCH_TIMEOUT');
    throw err;
  } finally {
    release();
  }
}
