import { buffer } from 'node:stream/consumers';
import type { AppContext } from '../../context';
import { Replacer, type Needle, type Placeholders } from './privacy.replace';
import * as repo from './privacy.repo';

/**
 * Other people's export files that are still downloadable may quote an erased person (a notice of
 * their gift in the campaign owner's export, a comment on that campaign): each is rewritten with
 * the placeholders the database's copies get, and stays JSON. Storage is a network call, so this
 * runs before the erasure's transaction (claim, call, confirm); a file rewritten for an erasure
 * whose transaction then fails holds placeholders where the person's strings were, which is what
 * the erasure, tried again, writes anyway. Answers how many files changed.
 */
export async function scrubExportFiles(ctx: AppContext, needles: Needle[], placeholders: Placeholders, exceptUserId: string | null): Promise<number> {
  if (!needles.length) return 0;
  const r = new Replacer(needles, placeholders);
  let changed = 0;
  for (const row of await repo.readyExportFiles(ctx.db, exceptUserId)) {
    const obj = await ctx.storage.open(row.storage_key);
    if (!obj) continue;
    const before = await buffer(obj.body);
    const after = r.bytes(before);
    if (after.equals(before)) continue;
    await ctx.storage.put(row.storage_key, after, { contentType: obj.contentType, size: after.length });
    changed += 1;
  }
  return changed;
}
