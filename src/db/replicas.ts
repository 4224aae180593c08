import type Redis from 'ioredis';
import { recordDbRead } from '../infra/metrics';
import type { Logger } from '../infra/logger';
import { createDb, type Db } from './knex';
import { PrimaryHistory, primaryLsn, probeReplica, type ReplicaState } from './replica-probe';

/**
 * Where guest reads and read-cache fills run (docs/decisions/0006-replicas-chosen-by-wal-position.md): a hot
 * standby whose replay lag is within `maxLagMs`, else the primary. Writes, SERIALIZABLE work,
 * LISTEN and the job engine never come here: they use ctx.db (the primary).
 *
 * - Lag is probed in the background every `probeMs` by comparing each standby's replay position
 *   with the primary's (replica-probe.ts); a standby that fails a probe, or has not answered one
 *   for a while, is skipped until it answers again. A read that fails on a standby is run again
 *   on the primary, so a standby dying mid-read costs the client nothing.
 * - Read-your-writes: after a signed-in caller's write the primary's position is kept for the
 *   account for 60 s (in this process, and in Redis for the other processes); that caller reads a
 *   standby only once it has replayed past it.
 * - Cache fills: a change notification can arrive before a standby has replayed the change, so
 *   `fence()` (called on each invalidation) takes the primary's position after it; until that
 *   position is known reads use the primary, then only standbys at or past it (asked at read time
 *   when the last probe saw them behind: see pickAsked).
 */
export interface Replicas {
  readonly enabled: boolean;
  /**
   * Runs a guest (actor null) or signed-in read on the database chosen for it; retried on the
   * primary if a standby fails it. `replayLsn` is the standby's replay position when chosen (null: the primary).
   */
  read<T>(actor: { userId: string } | null, fn: (db: Db, replayLsn: bigint | null) => Promise<T>): Promise<T>;
  /** What a standby's answer must have replayed to be as new as every invalidation seen (for answers shared through Redis). */
  readFloor(): bigint;
  /** After a signed-in caller's committed write: remembers the primary's position for read-your-writes. */
  noteWrite(accountId: string): Promise<void>;
  /** After an invalidation of cached reads: later fills never read a standby behind that change. */
  fence(): void;
  readonly counts: { replica: number; primary: number };
  close(): Promise<void>;
}

const RYW_TTL_MS = 60_000;
/** How long a read waits for a standby's position before it goes to the primary. */
const ASK_TIMEOUT_MS = 250;
/** Past any WAL position: while an invalidation's position is being read, no standby answer counts as new enough. */
const UNREACHABLE = 1n << 64n;

interface Standby extends ReplicaState {
  url: string;
  db: Db;
}

export interface ReplicaOptions {
  urls: string[];
  maxLagMs: number;
  redis: Redis | null;
  log: Logger;
  probeMs?: number;
  /** The pool bounds of each standby (the request class's statement timeout). */
  statementTimeoutMs?: number;
  redisPrefix?: string;
}

export function createReplicas(primary: Db, opts: ReplicaOptions): Replicas {
  return opts.urls.length ? new ReplicaRouter(primary, opts) : primaryOnly(primary);
}

function primaryOnly(primary: Db): Replicas {
  return {
    enabled: false,
    counts: { replica: 0, primary: 0 },
    read: (_actor, fn) => fn(primary, null),
    readFloor: () => 0n,
    noteWrite: async () => undefined,
    fence: () => undefined,
    close: async () => undefined,
  };
}

class ReplicaRouter implements Replicas {
  readonly enabled = true;
  readonly counts = { replica: 0, primary: 0 };
  private readonly standbys: Standby[];
  private readonly history = new PrimaryHistory();
  private readonly probeMs: number;
  private readonly writes = new Map<string, { lsn: bigint; until: number }>();
  private fenceLsn = 0n;
  /** Invalidations whose primary position is not known yet (reads use the primary meanwhile). */
  private fenceWanted = 0;
  private timer: NodeJS.Timeout | null = null;
  private probing = false;
  private closed = false;
  private next = 0;

  constructor(
    private readonly primary: Db,
    private readonly opts: ReplicaOptions,
  ) {
    this.probeMs = opts.probeMs ?? 300;
    // A standby that does not answer in a second is treated as down; its reads go to the primary.
    this.standbys = opts.urls.map((url) => ({
      url,
      db: createDb(url, { max: 10, acquireTimeoutMs: 1000, statementTimeoutMs: opts.statementTimeoutMs ?? 10_000 }),
      replay: null,
      okAt: 0,
    }));
    this.timer = setInterval(() => void this.probe(), this.probeMs);
    this.timer.unref();
    void this.probe();
  }

  private async probe(): Promise<void> {
    if (this.probing || this.closed) return;
    this.probing = true;
    try {
      // The primary first: a standby at or past this position was caught up when it answered.
      try {
        this.history.note(await primaryLsn(this.primary));
      } catch {
        return; // primary unreachable: reads fail on their own; nothing to compare with
      }
      await Promise.all(
        this.standbys.map(async (s) => {
          try {
            s.replay = await withTimeout(probeReplica(s.db), 1000);
            s.okAt = Date.now();
          } catch (err) {
            if (s.replay !== null) this.opts.log.warn({ replica: redact(s.url), err: (err as Error).message }, 'replica down: reads go to the primary');
            s.replay = null;
          }
        }),
      );
    } finally {
      this.probing = false;
    }
  }

  /** A standby that has replayed `minLsn`, within the lag bound, answering its probes; round-robin among them. */
  private pick(minLsn: bigint): Standby | null {
    if (this.fenceWanted > 0) return null;
    const floor = this.floorOf(minLsn);
    const now = Date.now();
    for (let i = 0; i < this.standbys.length; i += 1) {
      const s = this.standbys[(this.next + i) % this.standbys.length]!;
      if (!this.healthy(s, now) || s.replay! < floor) continue;
      this.next = (this.next + i + 1) % this.standbys.length;
      return s;
    }
    return null;
  }

  /** Answering its probes, and within the lag bound by its last one. */
  private healthy(s: Standby, now: number): boolean {
    return s.replay !== null && now - s.okAt <= this.probeMs * 3 + 1000 && this.history.lagMs(s.replay, now) <= this.opts.maxLagMs;
  }

  /** What a standby must have replayed for a read needing `minLsn`: that, and every invalidation's fence. */
  private floorOf(minLsn: bigint): bigint {
    return minLsn > this.fenceLsn ? minLsn : this.fenceLsn;
  }

  /**
   * A standby the last probe saw behind `minLsn` or the fence, but answering and within the lag
   * bound, asked for its replay position now (one short query). A fill follows an invalidation,
   * whose fence is newer than the last probe whenever changes come faster than probes: without
   * asking, a steady stream of gifts would keep every fill on the primary. Replay only moves
   * forward, so whatever the read runs after this answer sees at least that position.
   */
  private async pickAsked(minLsn: bigint): Promise<Standby | null> {
    const now = Date.now();
    for (let i = 0; i < this.standbys.length && this.fenceWanted === 0; i += 1) {
      const k = (this.next + i) % this.standbys.length;
      const s = this.standbys[k]!;
      if (!this.healthy(s, now)) continue;
      const replay = await withTimeout(probeReplica(s.db), ASK_TIMEOUT_MS).catch(() => null);
      // Not answering in time, or promoted: the background probe decides what it is.
      if (replay === null) continue;
      if (s.replay !== null && replay > s.replay) s.replay = replay;
      // The fence as it is now: a change may have been notified while the standby answered.
      if (replay < this.floorOf(minLsn) || this.fenceWanted > 0) continue;
      this.next = (k + 1) % this.standbys.length;
      return s;
    }
    return null;
  }

  readFloor(): bigint {
    return this.fenceWanted > 0 ? UNREACHABLE : this.fenceLsn;
  }

  async read<T>(actor: { userId: string } | null, fn: (db: Db, replayLsn: bigint | null) => Promise<T>): Promise<T> {
    const floor = actor ? await this.writtenAt(actor.userId) : 0n;
    const standby = floor === null ? null : (this.pick(floor) ?? (await this.pickAsked(floor)));
    if (standby) {
      try {
        const out = await fn(standby.db, standby.replay);
        this.count('replica');
        return out;
      } catch (err) {
        // The answer itself (an API error: 404, 403) is the same on the primary; anything else may
        // be the standby. Recognised by its HTTP status, since db/ does not import http/.
        if (isAnswer(err)) throw err;
        standby.replay = null;
        this.opts.log.warn({ replica: redact(standby.url), err: (err as Error).message }, 'read failed on a replica: retried on the primary');
      }
    }
    const out = await fn(this.primary, null);
    this.count('primary');
    return out;
  }

  private count(target: 'replica' | 'primary'): void {
    this.counts[target] += 1;
    recordDbRead(target);
  }

  /** The position the account last wrote at (0n: none known), or null when unknown (Redis did not answer): use the primary. */
  private async writtenAt(accountId: string): Promise<bigint | null> {
    const now = Date.now();
    const local = this.writes.get(accountId);
    if (local && local.until > now) return local.lsn;
    if (local) this.writes.delete(accountId);
    const redis = this.opts.redis;
    if (!redis) return 0n;
    if (redis.status !== 'ready') return null;
    const got = await withTimeout(redis.get(this.key(accountId)), 100).catch(() => undefined);
    if (got === undefined) return null;
    return got ? BigInt(got) : 0n;
  }

  async noteWrite(accountId: string): Promise<void> {
    const lsn = await primaryLsn(this.primary).catch(() => null);
    if (lsn === null) return;
    const prev = this.writes.get(accountId);
    this.writes.set(accountId, { lsn: prev && prev.lsn > lsn ? prev.lsn : lsn, until: Date.now() + RYW_TTL_MS });
    if (this.writes.size > 100_000) this.writes.delete(this.writes.keys().next().value!);
    const redis = this.opts.redis;
    if (redis && redis.status === 'ready') {
      // Before the answer goes out, so the caller's next request through another process sees it.
      await withTimeout(redis.set(this.key(accountId), lsn.toString(), 'PX', RYW_TTL_MS), 100).catch(() => undefined);
    }
  }

  private key(accountId: string): string {
    return `${this.opts.redisPrefix ?? 'ryw:'}${accountId}`;
  }

  fence(): void {
    this.fenceWanted += 1;
    void this.takeFence();
  }

  private async takeFence(): Promise<void> {
    for (;;) {
      try {
        const lsn = await primaryLsn(this.primary);
        if (lsn > this.fenceLsn) this.fenceLsn = lsn;
        this.fenceWanted -= 1;
        return;
      } catch {
        if (this.closed) return;
        await new Promise((r) => setTimeout(r, 200).unref());
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all(this.standbys.map((s) => s.db.destroy()));
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The URL without its password, for logs. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'replica';
  }
}

function isAnswer(err: unknown): boolean {
  return err instanceof Error && typeof (err as { status?: unknown }).status === 'number';
}
