/**
 * Polls `fn` until it answers something other than undefined, null or false (a thrown error
 * counts as not yet), and answers that; throws after `ms` naming what it waited for. Shared by
 * the local cluster (scripts/cluster/) and the tests, which wait on processes the same way.
 */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  ms = 30_000,
  everyMs = 250,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await Promise.resolve()
      .then(fn)
      .catch(() => undefined);
    if (v !== undefined && v !== null && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
