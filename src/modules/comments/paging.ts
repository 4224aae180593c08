/** Offset paging as the list reads do: limit 1..max (larger is max; missing, zero, negative or junk is the default), offset >= 0. */
export function clampPage(q: { limit?: unknown; offset?: unknown }, def = 20, max = 100): { limit: number; offset: number } {
  const l = Number.parseInt(String(q.limit ?? ''), 10);
  const o = Number.parseInt(String(q.offset ?? ''), 10);
  return {
    limit: Number.isFinite(l) && l > 0 ? Math.min(l, max) : def,
    offset: Number.isFinite(o) && o > 0 ? o : 0,
  };
}
