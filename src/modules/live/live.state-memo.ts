/**
 * What a new stream starts from (a campaign's row and figures), read once for every stream that
 * opens until a notification says the campaign changed. When a telethon goes on air thousands of
 * viewers open at once, and each used to read the row and the figures itself: two queries per
 * viewer on the request pool, which queued the settlements and the page reads behind them. The
 * notifications that drop an entry are the live listener's own (a gift, a change of anything the
 * progress or readability shows), so an entry is never older than what a read begun at the same
 * moment would show; while that listener is not listening nothing is kept. A change committed
 * a moment ago reaches this process with its notification, as it reaches the read cache of every
 * other process (decision 0005): a stream opened in between is closed by the tick that follows.
 */
export class StateMemo<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor(
    /** Whether notifications are arriving (else every call reads). */
    private readonly usable: () => boolean,
    /** A safety net, not the freshness rule: the notifications are. */
    private readonly maxAgeMs = 1_000,
    private readonly maxEntries = 1_000,
  ) {}

  get(id: string, read: () => Promise<T>): Promise<T> {
    if (!this.usable()) return read();
    const kept = this.entries.get(id);
    if (kept && Date.now() - kept.at < this.maxAgeMs) return kept.value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const entry = { at: Date.now(), value: read() };
    this.entries.set(id, entry);
    // A failed read is not kept: the next stream tries again.
    entry.value.catch(() => this.entries.get(id) === entry && this.entries.delete(id));
    return entry.value;
  }

  drop(id: string): void {
    this.entries.delete(id);
  }

  clear(): void {
    this.entries.clear();
  }
}
