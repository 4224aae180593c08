import { sqlRef } from '../../db/sql-ref';

/**
 * A declared view (read only) of the donations module's fundraiser_paid_buckets: the 30-second
 * buckets of paid gifts a trigger on donations keeps, read by every campaign totals read. The
 * donations module imports this one (its counters), so the read is made here, not through its index.
 */

/**
 * SQL (a scalar subquery) counting the paid gifts of the campaign whose id is `fundraiserIdRef`
 * in buckets that start inside the last 24 hours (the window's oldest 30 seconds may be left out).
 */
export function giftsInLast24hSql(fundraiserIdRef: string): string {
  return `(select coalesce(sum(t24.n), 0) from fundraiser_paid_buckets t24 where t24.fundraiser_id = ${sqlRef(fundraiserIdRef)}
       and t24.bucket > now() - interval '24 hours')`;
}
