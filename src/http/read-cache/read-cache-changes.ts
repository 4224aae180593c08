/**
 * The read cache's log of invalidations (src/http/read-cache/read-cache.ts): a sequence number bumped by
 * every one, and the last 256 kept, so a fill can tell whether what it shows changed while it ran.
 */
interface Change {
  seq: number;
  fundraiserId: string | null;
  hard: boolean;
  at: number;
}

export class ChangeLog {
  /** Bumped by every invalidation. */
  seq = 0;
  private readonly recent: Change[] = new Array<Change>(256);

  /** A change to campaign `fundraiserId` (null: everything); `hard` for a local write or a drop. */
  record(fundraiserId: string | null, hard: boolean): void {
    this.seq += 1;
    this.recent[this.seq % this.recent.length] = { seq: this.seq, fundraiserId, hard, at: Date.now() };
  }

  /** The earliest change after `seq` touching `fundraiserId` (any, for list-like entries): null, its time, or 'hard'. */
  changedSince(seq: number, fundraiserId: string | null): number | null | 'hard' {
    if (seq === this.seq) return null;
    // More changes than the log keeps: treat as a local write (not kept).
    if (this.seq - seq > this.recent.length) return 'hard';
    let earliest: number | null = null;
    for (const c of this.recent) {
      if (!c || c.seq <= seq || (fundraiserId !== null && c.fundraiserId !== null && c.fundraiserId !== fundraiserId)) continue;
      if (c.hard) return 'hard';
      if (earliest === null || c.at < earliest) earliest = c.at;
    }
    return earliest;
  }
}
