import type { AppContext } from '../../context';
import { listTotalsVersion } from '../../infra/list-totals-version';

/** The cache key of one list total, under the version campaign writers bump (infra/list-totals-version.ts). */
export async function listTotalKey(ctx: Pick<AppContext, 'cache'>, parts: string): Promise<string> {
  return `discovery:total:${await listTotalsVersion(ctx)}:${parts}`;
}

/** A total is never below what the page itself proves exists (a stale count must not say otherwise). */
export const atLeastPage = (total: number, offset: number, rows: number): number => Math.max(total, rows > 0 ? offset + rows : 0);
