import type { Db } from '../../db/knex';
import { pendingMigrations, queryRows } from '../../db/knex';

/** /readyz answers within this, whatever the database does (docs/decisions/0011-outages-answer-503.md). */
export const READY_DEADLINE_MS = 800;
/** A database found migrated is believed so this long before it is asked again (a probe is one cheap query then). */
const MIGRATED_TTL_MS = 10_000;

const inFlight = new WeakMap<Db, Promise<boolean>>();
const migratedAt = new WeakMap<Db, number>();

/** True when no migration file is left to apply; a positive answer is kept MIGRATED_TTL_MS. */
async function migrated(db: Db): Promise<boolean> {
  const at = migratedAt.get(db);
  if (at !== undefined && Date.now() - at < MIGRATED_TTL_MS) return true;
  const ok = (await pendingMigrations(db)).length === 0;
  if (ok) migratedAt.set(db, Date.now());
  return ok;
}

/**
 * True when the database answers within the deadline and its migrations are all applied. Probes
 * of one pool share one query: a frozen server then holds at most one connection for the probes,
 * however often they poll.
 */
export async function databaseReady(db: Db, deadlineMs = READY_DEADLINE_MS): Promise<boolean> {
  let probe = inFlight.get(db);
  if (!probe) {
    probe = queryRows(db, 'select 1', [])
      .then(() => migrated(db))
      .then((ok) => ok, () => false)
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
