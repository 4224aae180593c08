import type { Request, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { InvalidationListener } from '../../infra/invalidation';
import { sendPrepared, type PreparedAnswer } from '../caching';
import type { ReadCacheEvent, ReadCacheOptions, ReadOutcome } from './read-cache.types';
import { assertReadCached } from './read-cache-routes';
import { SharedLayer, type Entry } from './read-cache-shared';
import { ChangeLog } from './read-cache-changes';
import { KeyIndex } from './read-cache-index';

/**
 * Read-through cache of the hot guest reads (campaign by slug or id, its stats, the default list
 * and its common filters, cities, categories). It keeps the answer as sent (bytes and ETag), so a
 * hit costs a map lookup and a write: no database, no JSON.stringify, no hashing.
 *
 * Freshness: every committed change to a table the cached reads show notifies `read_cache`
 * (database triggers, migration 202611270801; test/api/read-cache-sources.test.ts checks every
 * table the cached routes' SQL reads has one). A change of counts only (`<id>`) makes that
 * campaign's entries and every list-like entry stale: a stale entry still answers while one
 * refill runs, for at most `staleMs` (500 ms), then reads wait for the database. An edit
 * (`<id>:content`, `*`) drops them outright on every instance. A write request answers only once
 * its own instance has taken in every change committed before (`caughtUp`, called by
 * define-routes), so its next read already shows it, whichever table it wrote. While the
 * listener is not LISTENing the cache only passes through, since it could miss a change. A fill
 * that overlaps a change to what it shows is kept only as stale (or not at all after an edit),
 * so a read begun before a commit cannot pass the old answer off as fresh. Entries also lapse
 * after `ttlMs` (what no trigger sees: the 24-hour window sliding). Only routes declaring
 * `readCache: true` may use it (read-cache-routes.ts).
 *
 * With Redis, fills are shared between instances under one generation number that every
 * instance bumps on each notification: an entry is good only while the generation it was filled
 * under (read before the database) is current. Redis trouble only skips that layer.
 */
export type { ReadCacheEvent, ReadCacheOptions, ReadOutcome } from './read-cache.types';

export class ReadCache {
  private readonly local: LRUCache<string, Entry>;
  private readonly index = new KeyIndex();
  private readonly inflight = new Map<string, { seq: number; promise: Promise<ReadOutcome> }>();
  private readonly listener: InvalidationListener;
  private readonly shared: SharedLayer;
  private readonly ttlMs: number;
  private readonly changes = new ChangeLog();
  private readonly staleMs: number;
  private started = false;
  readonly counts: Record<ReadCacheEvent, number> = { hit: 0, stale_hit: 0, viewer_hit: 0, miss: 0, bypass: 0, shared_hit: 0, invalidation: 0 };
  /** Metrics hook: called for every counted event. */
  onEvent: ((event: ReadCacheEvent) => void) | null = null;

  constructor(private readonly opts: ReadCacheOptions) {
    this.ttlMs = opts.ttlMs ?? 30_000;
    this.staleMs = opts.staleMs ?? 500;
    this.shared = new SharedLayer(opts.redis ?? null, opts.redisPrefix ?? 'readcache:', opts.redisTimeoutMs ?? 50, this.ttlMs);
    this.local = new LRUCache<string, Entry>({
      max: opts.maxEntries ?? 10_000,
      maxSize: opts.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (e, key) => e.answer.body.length + key.length + 200,
      ttl: this.ttlMs,
      dispose: (e, key) => this.index.remove(key, e.fundraiserId),
    });
    this.listener = new InvalidationListener(
      opts.connection,
      {
        onMessage: (payload) => this.onNotification(payload),
        onUp: () => this.dropAll(),
        onDown: () => this.dropAll(),
      },
      opts.log,
    );
  }

  /** Whether reads may use the cache now (starts the listener on first use). */
  get active(): boolean {
    if (!this.started) {
      this.started = true;
      this.listener.start();
    }
    return this.listener.listening;
  }

  /** Starts listening now and resolves once it does (or after `timeoutMs`). */
  async ready(timeoutMs = 5_000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (!this.active && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    return this.active;
  }

  private count(event: ReadCacheEvent): void {
    this.counts[event] += 1;
    this.onEvent?.(event);
  }

  /**
   * Answers from the cache, or computes (once for concurrent misses), stores and answers. An entry
   * a notification has marked stale is still answered while its refill runs, for at most
   * `staleMs` after the change: with a gift settling every 50 ms on a campaign read by many,
   * readers would otherwise all wait on the database after each gift.
   */
  async serve(req: Request, res: Response, key: string, compute: () => Promise<ReadOutcome>): Promise<void> {
    const ticket = assertReadCached(res);
    if (!this.active) {
      this.count('bypass');
      return sendPrepared(req, res, (await compute()).answer);
    }
    // The next guest request for this URL can then be answered before Express (fast-hit.ts).
    ticket?.learn(req, key);
    const hit = this.local.get(key);
    if (hit && hit.staleSince === null) {
      this.count('hit');
      return sendPrepared(req, res, hit.answer);
    }
    if (hit && Date.now() - hit.staleSince! < this.staleMs) {
      this.count('stale_hit');
      if (!this.inflight.has(key)) this.fill(key, compute).catch(() => undefined);
      return sendPrepared(req, res, hit.answer);
    }
    this.count('miss');
    sendPrepared(req, res, (await this.fill(key, compute)).answer);
  }

  /**
   * The fresh answer of `key`, not yet counted (the fast path counts it with `countHit` once it
   * answers from it): null when absent, stale or while the cache only passes through.
   */
  freshAnswer(key: string): PreparedAnswer | null {
    if (!this.active) return null;
    const e = this.local.get(key);
    return e !== undefined && e.staleSince === null ? e.answer : null;
  }

  countHit(): void {
    this.count('hit');
  }

  /**
   * The fresh cached bytes of `key` for a signed-in viewer who is not the campaign's owner: the
   * detail reads answer such a viewer exactly what they answer a guest (only the owner sees more),
   * so only the credential check is left to do. Null when there is no fresh entry, the entry is
   * not one viewers may share, or the viewer owns it. Never fills: a miss reads the database.
   */
  viewerCopy(key: string, viewerId: string): PreparedAnswer | null {
    if (!this.active) return null;
    const e = this.local.get(key);
    if (!e || e.staleSince !== null || e.ownerUserId === null || e.ownerUserId === viewerId) return null;
    this.count('viewer_hit');
    return e.answer;
  }

  /** The invalidation sequence now: take it before a read that may later be `offer`ed. */
  snapshot(): number {
    return this.changes.seq;
  }

  /**
   * Stores what a read computed outside `serve` (a signed-in viewer's read of the guest bytes),
   * begun at `seq` (from snapshot()); never shared with concurrent reads while it runs.
   */
  offer(res: Response, key: string, seq: number, out: ReadOutcome): void {
    assertReadCached(res);
    if (!out.cacheable || !this.active) return;
    this.store(key, { answer: out.answer, fundraiserId: out.fundraiserId, ownerUserId: out.ownerUserId ?? null, staleSince: null }, seq);
  }

  private fill(key: string, compute: () => Promise<ReadOutcome>): Promise<ReadOutcome> {
    const running = this.inflight.get(key);
    if (running && running.seq === this.changes.seq) return running.promise;
    const seq = this.changes.seq;
    const promise = this.load(key, seq, compute);
    this.inflight.set(key, { seq, promise });
    const done = () => {
      if (this.inflight.get(key)?.promise === promise) this.inflight.delete(key);
    };
    promise.then(done, done);
    return promise;
  }

  private async load(key: string, seq: number, compute: () => Promise<ReadOutcome>): Promise<ReadOutcome> {
    const shared = await this.shared.get(key);
    // Read on a standby behind a change this process has seen: not new enough, read again.
    const floor = this.opts.readFloor?.() ?? 0n;
    if (shared.entry && shared.entry.replayLsn != null && shared.entry.replayLsn < floor) shared.entry = null;
    if (shared.entry) {
      this.count('shared_hit');
      this.store(key, shared.entry, seq);
      return { answer: shared.entry.answer, cacheable: true, fundraiserId: shared.entry.fundraiserId, ownerUserId: shared.entry.ownerUserId };
    }
    let out: ReadOutcome;
    try {
      out = await compute();
    } catch (err) {
      // Gone (404) or failing: a stale copy must not outlive the answer that replaced it.
      this.local.delete(key);
      throw err;
    }
    if (!out.cacheable) this.local.delete(key);
    else if (this.listener.listening) {
      const entry: Entry = { answer: out.answer, fundraiserId: out.fundraiserId, ownerUserId: out.ownerUserId ?? null, staleSince: null, replayLsn: out.replayLsn ?? null };
      if (this.store(key, entry, seq) && shared.gen !== null) this.shared.set(key, entry, shared.gen);
    }
    return out;
  }

  /**
   * Stores a fill begun at invalidation sequence `seq`. A change to what it shows since then
   * means it may hold the old answer: after a local write (hard) it is dropped; after a
   * notification it is kept as stale since that change (still newer than what it replaces).
   * Answers whether it was stored fresh.
   */
  private store(key: string, entry: Entry, seq: number): boolean {
    const since = this.changes.changedSince(seq, entry.fundraiserId);
    if (since === 'hard') return false;
    entry.staleSince = since;
    this.local.set(key, entry);
    if (!this.local.has(key)) return false; // too large for the cache
    this.index.add(key, entry.fundraiserId);
    return since === null;
  }

  private record(fundraiserId: string | null, hard: boolean): void {
    this.opts.onInvalidate?.();
    this.changes.record(fundraiserId, hard);
  }

  /**
   * A change this instance committed to campaign `fundraiserId` (a local write, before it
   * answers): its entries and every list-like entry go at once, and fills begun before it are
   * not kept.
   */
  invalidate(fundraiserId: string): void {
    this.record(fundraiserId, true);
    this.count('invalidation');
    for (const key of [...this.index.keysOf(fundraiserId)]) this.local.delete(key);
    for (const key of [...this.index.listKeys]) this.local.delete(key);
    this.shared.bump();
  }

  /** A notification of a committed change: the same entries turn stale (answered while refilled, see serve). */
  private invalidateSoft(fundraiserId: string): void {
    this.record(fundraiserId, false);
    this.count('invalidation');
    const now = Date.now();
    const mark = (key: string) => {
      const e = this.local.peek(key);
      if (e) e.staleSince ??= now;
    };
    for (const key of this.index.keysOf(fundraiserId)) mark(key);
    for (const key of this.index.listKeys) mark(key);
    this.shared.bump();
  }

  /**
   * A committed change from any process (migration 202611270801): `<id>` counts only (stale while
   * refilled), `<id>:content` an edit (dropped outright), `*` everything (a category).
   */
  private onNotification(payload: string): void {
    if (payload === '*') {
      this.count('invalidation');
      return this.dropAll();
    }
    const [id, kind] = payload.split(':');
    if (kind === 'content') this.invalidate(id!);
    else this.invalidateSoft(id!);
  }

  /**
   * Resolves once this instance has taken in every change committed before the call (a write
   * request calls it before answering, so its own next read shows the write whoever made it).
   * False when it could not be confirmed: everything is dropped then.
   */
  async caughtUp(timeoutMs = 1_000): Promise<boolean> {
    if (!this.listener.listening) return true; // not caching: nothing to catch up on
    if (await this.listener.barrier(timeoutMs)) return true;
    this.dropAll();
    return false;
  }

  private dropAll(): void {
    this.record(null, true);
    this.local.clear();
    this.shared.bump();
  }

  async close(): Promise<void> {
    await this.listener.close();
    this.local.clear();
  }
}
