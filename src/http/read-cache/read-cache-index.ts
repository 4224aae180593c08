/**
 * Which cached keys show which campaign (src/http/read-cache/read-cache.ts): a change to a campaign reaches
 * its own entries and every list-like entry (those showing no single campaign), without a scan.
 */
export class KeyIndex {
  private readonly byFundraiser = new Map<string, Set<string>>();
  /** Entries showing no single campaign (lists, cities, categories): every change reaches them. */
  readonly listKeys = new Set<string>();

  add(key: string, fundraiserId: string | null): void {
    if (fundraiserId === null) this.listKeys.add(key);
    else {
      let keys = this.byFundraiser.get(fundraiserId);
      if (!keys) this.byFundraiser.set(fundraiserId, (keys = new Set()));
      keys.add(key);
    }
  }

  remove(key: string, fundraiserId: string | null): void {
    if (fundraiserId === null) this.listKeys.delete(key);
    else {
      const keys = this.byFundraiser.get(fundraiserId);
      keys?.delete(key);
      if (keys?.size === 0) this.byFundraiser.delete(fundraiserId);
    }
  }

  /** The keys showing `fundraiserId` (live view: copy before deleting entries while iterating). */
  keysOf(fundraiserId: string): ReadonlySet<string> {
    return this.byFundraiser.get(fundraiserId) ?? EMPTY;
  }
}

const EMPTY: ReadonlySet<string> = new Set();
