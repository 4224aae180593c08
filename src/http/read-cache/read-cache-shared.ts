import type Redis from 'ioredis';
import type { PreparedAnswer } from '../caching';

/** One cached answer (defined here, beside the shared layer that stores it, so read-cache.ts imports this file one way). */
export interface Entry {
  answer: PreparedAnswer;
  fundraiserId: string | null;
  ownerUserId: string | null;
  /** When a notified change made it stale (Date.now()); null while fresh. */
  staleSince: number | null;
  /** The standby's replay position it was read at (null: the primary). */
  replayLsn?: bigint | null;
}

/**
 * The read cache's optional second layer in Redis: fills shared between instances under one
 * generation number (`<prefix>gen`) that every instance bumps on each invalidation. An entry is
 * good only while the generation it was filled under, read before the database, is current, so a
 * fill that raced a change can never be taken for fresh. Skipped whenever Redis is not ready or
 * slower than `timeoutMs`: the local layer answers alone.
 */
export class SharedLayer {
  private readonly genKey: string;

  constructor(
    private readonly redis: Redis | null,
    private readonly prefix: string,
    private readonly timeoutMs: number,
    private readonly ttlMs: number,
  ) {
    this.genKey = `${prefix}gen`;
  }

  private usable(): boolean {
    return !!this.redis && this.redis.status === 'ready';
  }

  private withTimeout<T>(p: Promise<T>): Promise<T | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.timeoutMs);
    });
    return Promise.race([p.catch(() => null), timeout]).finally(() => clearTimeout(timer));
  }

  /** The shared entry when its generation is current, and the generation to fill under (null: layer skipped). */
  async get(key: string): Promise<{ entry: Entry | null; gen: string | null }> {
    if (!this.usable()) return { entry: null, gen: null };
    const got = await this.withTimeout(this.redis!.mgetBuffer(this.prefix + key, this.genKey));
    if (!got) return { entry: null, gen: null };
    const [raw, genBuf] = got;
    const gen = genBuf ? genBuf.toString() : '0';
    return { entry: raw ? decode(raw, gen) : null, gen };
  }

  set(key: string, entry: Entry, gen: string): void {
    if (!this.usable()) return;
    void this.withTimeout(this.redis!.set(this.prefix + key, encode(entry, gen), 'PX', this.ttlMs));
  }

  /** Queued on the connection before any later read, so this instance never reads past it. */
  bump(): void {
    if (this.usable()) void this.redis!.incr(this.genKey).catch(() => undefined);
  }
}

/**
 * `gen[@replayLsn] \n fundraiserId \n ownerUserId \n etag \n cacheControl \n vary \n status \n body`: one string
 * per entry. A standby's replay position rides on the generation, so a process of the previous
 * release (during a rolling deploy) reads such an entry as another generation's, a miss, never as a wrong body.
 */
function encode(e: Entry, gen: string): Buffer {
  const a = e.answer;
  const stamp = e.replayLsn == null ? gen : `${gen}@${e.replayLsn.toString()}`;
  const head = [stamp, e.fundraiserId ?? '', e.ownerUserId ?? '', a.etag, a.cacheControl ?? '', a.vary ?? '', String(a.status)].join('\n');
  return Buffer.concat([Buffer.from(`${head}\n`), a.body]);
}

function decode(raw: Buffer, currentGen: string): Entry | null {
  const fields: string[] = [];
  let at = 0;
  for (let i = 0; i < 7; i += 1) {
    const nl = raw.indexOf(10, at);
    if (nl === -1) return null;
    fields.push(raw.subarray(at, nl).toString());
    at = nl + 1;
  }
  const [stamp, fid, owner, etag, cacheControl, vary, status] = fields as [string, string, string, string, string, string, string];
  const [gen, lsn] = stamp.split('@');
  if (gen !== currentGen || (lsn !== undefined && !/^\d+$/.test(lsn))) return null;
  return {
    fundraiserId: fid || null,
    ownerUserId: owner || null,
    staleSince: null,
    replayLsn: lsn ? BigInt(lsn) : null,
    answer: { body: Buffer.from(raw.subarray(at)), etag, cacheControl: cacheControl || null, vary: vary || null, status: Number(status) },
  };
}
