import knexFactory, { type Knex } from 'knex';
import type { AppContext } from '../../context';
import type { Db } from '../../db/knex';
import { journalGiftsAfter, journalHead } from '../donations';
import { liveListener } from './live.listener';
import { StateMemo } from './live.state-memo';
import { campaignState, closingReason, sseEvent, type CampaignState } from './live.reads';
import { BEAT_CHECK_MS, needsBeat, sliced, tickMs } from './live.pacing';
import { chunkFrame, type Batch, type BatchPart, type Viewer } from './live.viewer';
import { directConnection } from '../../infra/db-endpoints';
import type { ListenSession } from '../../infra/listen-session';
import { recordLiveTick } from '../../infra/metrics';

const GIFTS_PER_READ = 500;

/** Everything one process sends about one campaign: one subscription, many viewers. */
interface Channel {
  id: string;
  viewers: Set<Viewer>;
  /** The journal position of the last gift this process has sent to this campaign's viewers. */
  cursor: bigint;
  gifts: boolean;
  changed: boolean;
  lastProgress: string;
  lastFlush: number;
  timer: NodeJS.Timeout | null;
  busy: boolean;
  /** Set up once (LISTEN in effect, then the journal's head read), shared by concurrent joins. */
  ready: Promise<void>;
}

/**
 * The process's live streams (docs/integrators/live-stream.md): viewers grouped by campaign, one
 * LISTEN session for the whole process, and per campaign one database read and one write per
 * viewer per tick, however many gifts the tick holds.
 */
export class LiveHub {
  private readonly channels = new Map<string, Channel>();
  private readonly byAddress = new Map<string, number>();
  private readonly listener: ListenSession;
  private reader: Db | null = null;
  private readonly ticking = new Set<Promise<void>>();
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;
  // Read lazily: the listener is made in the constructor, after the fields.
  private readonly starts = new StateMemo<CampaignState | null>(() => this.listener?.listening === true);
  /** Streams open or being opened in this process. */
  open = 0;

  constructor(private readonly ctx: AppContext) {
    this.listener = liveListener(
      directConnection(ctx.db),
      {
        gift: (id) => {
          this.starts.drop(id);
          this.poke(this.channels.get(id), true);
        },
        change: (id) => {
          if (id === null) {
            this.starts.clear();
            for (const ch of this.channels.values()) this.poke(ch, false);
          } else {
            this.starts.drop(id);
            this.poke(this.channels.get(id), false);
          }
        },
        // Whatever committed while nobody listened is read now (by journal position, so nothing twice).
        up: () => {
          this.starts.clear();
          for (const ch of this.channels.values()) this.poke(ch, true);
        },
      },
      ctx.log,
    );
    this.heartbeat = setInterval(() => this.beat(), BEAT_CHECK_MS);
    this.heartbeat.unref();
  }

  /** The row and figures a new stream of the campaign starts from (one read for every stream opening at once). */
  startState(id: string): Promise<CampaignState | null> {
    return this.starts.get(id, () => campaignState(this.ctx.db, id));
  }

  openFrom(address: string): number {
    return this.byAddress.get(address) ?? 0;
  }

  /** Counts a stream against the limits before any database work (undone by `leave`). */
  reserve(address: string): void {
    this.open += 1;
    this.byAddress.set(address, this.openFrom(address) + 1);
  }

  release(address: string): void {
    this.open -= 1;
    const n = this.openFrom(address) - 1;
    if (n > 0) this.byAddress.set(address, n);
    else this.byAddress.delete(address);
  }

  /** Whether the process can serve streams now (its LISTEN session is up). */
  listening(timeoutMs = 5_000): Promise<boolean> {
    return this.listener.ready(timeoutMs);
  }

  /**
   * Adds a viewer to its campaign's channel and answers the position it starts after: nothing
   * the channel sends later is at or before it, and nothing after it is missed.
   */
  async join(id: string, viewer: Viewer): Promise<bigint> {
    let ch = this.channels.get(id);
    if (!ch) {
      const fresh: Channel = {
        id, viewers: new Set(), cursor: 0n, gifts: false, changed: false, lastProgress: '', lastFlush: 0, timer: null, busy: false, ready: Promise.resolve(),
      };
      // LISTEN first, then the head: a gift committed after the head was read is notified.
      fresh.ready = (async () => {
        if (!(await this.listener.ready(5_000))) throw new Error('live listener is not listening');
        fresh.cursor = BigInt(await journalHead(this.ctx.db, id));
      })();
      this.channels.set(id, (ch = fresh));
      fresh.ready.catch(() => this.channels.get(id) === fresh && fresh.viewers.size === 0 && this.channels.delete(id));
    }
    ch.viewers.add(viewer);
    try {
      await ch.ready;
    } catch (err) {
      this.leave(id, viewer);
      throw err;
    }
    return ch.cursor;
  }

  leave(id: string, viewer: Viewer): void {
    const ch = this.channels.get(id);
    if (!ch || !ch.viewers.delete(viewer) || ch.viewers.size > 0) return;
    if (ch.timer) clearTimeout(ch.timer);
    this.channels.delete(id);
  }

  private poke(ch: Channel | undefined, gifts: boolean): void {
    if (!ch) return;
    if (gifts) ch.gifts = true;
    // A settled gift changes the figures too, whichever table the counters live in.
    ch.changed = true;
    this.schedule(ch);
  }

  private schedule(ch: Channel): void {
    if (ch.timer || ch.busy || this.closed) return;
    ch.timer = setTimeout(() => {
      const tick = this.flush(ch);
      this.ticking.add(tick);
      void tick.finally(() => this.ticking.delete(tick));
    }, Math.max(0, ch.lastFlush + tickMs(ch.viewers.size) - Date.now()));
  }

  /**
   * The ticks' own connection (one per process, a direct session like the listener's): a tick's
   * reads never queue for the request pool behind settlements and page reads, which is what made
   * delivery fall seconds behind under load. One connection is enough: a tick reads once per
   * campaign, whatever the number of viewers.
   */
  private reads(): Db {
    if (this.closed) throw new Error('live streams are closed');
    this.reader ??= knexFactory({
      client: 'pg',
      connection: { ...directConnection(this.ctx.db), keepAlive: true } as Knex.PgConnectionConfig,
      pool: { min: 0, max: 1, idleTimeoutMillis: 60_000 },
      acquireConnectionTimeout: 10_000,
    });
    return this.reader;
  }

  /** One tick: the new gifts and the figures if they moved, as one write to each viewer. */
  private async flush(ch: Channel): Promise<void> {
    ch.timer = null;
    ch.busy = true;
    const parts: BatchPart[] = [];
    const closing = new Map<Viewer, Buffer>();
    const started = performance.now();
    try {
      await ch.ready;
      const db = this.reads();
      while (ch.gifts) {
        ch.gifts = false;
        const gifts = await journalGiftsAfter(db, ch.id, ch.cursor.toString(), { limit: GIFTS_PER_READ });
        for (const g of gifts) {
          const { id, amount_cents, currency, donor_name, created_at } = g.gift;
          parts.push({ seq: BigInt(g.seq), text: sseEvent('donation', { id, amount_cents, currency, donor_name, created_at }, g.seq) });
        }
        if (gifts.length > 0) ch.cursor = BigInt(gifts[gifts.length - 1]!.seq);
        if (gifts.length === GIFTS_PER_READ) ch.gifts = true;
      }
      if (ch.changed) {
        ch.changed = false;
        const state = await campaignState(db, ch.id);
        const progress = state ? JSON.stringify(state.progress) : ch.lastProgress;
        if (state && progress !== ch.lastProgress) parts.push({ text: `event: progress\ndata: ${progress}\n\n` });
        ch.lastProgress = progress;
        this.closings(state, ch.viewers, closing);
      }
    } catch (err) {
      this.ctx.log.warn({ err, fundraiserId: ch.id }, 'live streams: tick failed; trying again');
      ch.gifts = true;
      ch.changed = true;
    }
    const wrote = performance.now();
    recordLiveTick('read', (wrote - started) / 1000);
    // Counted from the write, so writes (not just reads) are tickMs apart however long the reads took.
    if (parts.length > 0 || closing.size > 0) ch.lastFlush = Date.now();
    if (parts.length > 0 || closing.size > 0) {
      // Serialized once per tick: every viewer that has none of it yet gets the very same bytes.
      const seqs = parts.filter((p) => p.seq !== undefined).map((p) => p.seq!);
      const whole = Buffer.from(parts.map((p) => p.text).join(''));
      const batch: Batch = { parts, whole, frame: chunkFrame(whole), firstSeq: seqs.length > 0 ? seqs[0]! : null };
      // Thousands of viewers are written in slices, so requests (slug reads, settlements) get the
      // event loop between them; the channel stays busy until the last slice, so ticks never overlap.
      await sliced([...ch.viewers], (v) => {
        v.send(batch);
        const last = closing.get(v);
        if (last !== undefined) v.end(last);
      });
      recordLiveTick('write', (performance.now() - wrote) / 1000);
    }
    ch.busy = false;
    if (ch.gifts || ch.changed) this.schedule(ch);
  }

  /** Viewers whose stream ends with this state; the reason is worked out once per kind of caller. */
  private closings(state: CampaignState | null, viewers: Set<Viewer>, out: Map<Viewer, Buffer>): void {
    const memo = new Map<unknown, Buffer | null>();
    for (const v of viewers) {
      // Guests (null) share one entry; a signed-in viewer's rights are its own.
      const key = v.actor;
      let last = memo.get(key);
      if (last === undefined) {
        const reason = closingReason(state, v.actor);
        memo.set(key, (last = reason ? Buffer.from(sseEvent('closed', { reason })) : null));
      }
      if (last) out.set(v, last);
    }
  }

  /** Only streams nothing was written to lately need the comment line; in slices, as the ticks. */
  private beat(): void {
    const now = Date.now();
    const viewers = [...this.channels.values()].flatMap((ch) => [...ch.viewers]);
    void sliced(viewers, (v) => needsBeat(v, now) && v.beat());
  }

  /** Graceful stop: every stream ends now (clients reconnect, to another process), no new one opens. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const ch of this.channels.values()) {
      if (ch.timer) clearTimeout(ch.timer);
      for (const v of ch.viewers) v.end();
    }
    this.channels.clear();
    await this.listener.close();
    // A tick midway through its reads finishes them before their connection goes (else they would wait out the pool).
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.ticking]), new Promise((r) => (waited = setTimeout(r, 5_000)))]);
    clearTimeout(waited);
    const reader = this.reader;
    this.reader = null;
    await reader?.destroy();
  }

  get closing(): boolean {
    return this.closed;
  }
}

const hubs = new WeakMap<AppContext, LiveHub>();

/** The hub of the process (one per app context), made on first use. */
export function liveHub(ctx: AppContext): LiveHub {
  let hub = hubs.get(ctx);
  if (!hub) hubs.set(ctx, (hub = new LiveHub(ctx)));
  return hub;
}

/** Ends every live stream of the context (graceful stop), if it ever had any. */
export async function closeLiveStreams(ctx: AppContext): Promise<void> {
  await hubs.get(ctx)?.close();
}
