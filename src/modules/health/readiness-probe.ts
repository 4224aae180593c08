import type { Db } from '../../db/knex';
import { queryRows } from '../../db/knex';

/** /readyz answers within this, whatever the database does (decisions.md Part 3 "Outages"). */
export const READY_DEADLINE_MS = 800;

const inFlight = new WeakMap<Db, Promise<boolean>>();

/**
 * True when the database answers `select 1` within the deadline. Probes of one pool share one
 * query: a frozen server then holds at most one connection for the probes, however often they poll.
 */
export async function databaseReady(db: Db, deadlineMs = READY_DEADLINE_MS): Promise<boolean> {
  let probe = inFlight.get(db);
  if (!probe) {
    probe = queryRows(db, 'select 1', [])
      .then(() => true, () => false)
      .finally(() => inFlight.delete(db));
    inFlight.set(db, probe);
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), deadlineMs);
  });
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}
