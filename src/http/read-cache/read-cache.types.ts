import type Redis from 'ioredis';
import type pg from 'pg';
import type { Logger } from '../../infra/logger';
import type { PreparedAnswer } from '../caching';

// What the read cache serves and counts, and how it is set up (src/http/read-cache/read-cache.ts).

export type ReadCacheEvent = 'hit' | 'stale_hit' | 'viewer_hit' | 'miss' | 'bypass' | 'shared_hit' | 'invalidation';

export interface ReadOutcome {
  answer: PreparedAnswer;
  /** false: the answer is per viewer or not public; sent, never stored. */
  cacheable: boolean;
  /** The campaign the answer shows (its changes drop it); null for list-like answers. */
  fundraiserId: string | null;
  /** The campaign's owner, when other signed-in viewers get these same bytes (see viewerCopy). */
  ownerUserId?: string | null;
  /** The standby's replay position the answer was read at; null or absent: read on the primary. */
  replayLsn?: bigint | null;
}

export interface ReadCacheOptions {
  connection: string | pg.ClientConfig;
  log: Logger;
  redis?: Redis | null;
  maxEntries?: number;
  maxBytes?: number;
  ttlMs?: number;
  /** Upper bound on a Redis round trip before the shared layer is skipped for this read. */
  redisTimeoutMs?: number;
  /** How long after a notified change its stale entry may still answer while refilled (default 500 ms). */
  staleMs?: number;
  /** Called on every invalidation (local write, notification, listener up/down): replicas fence cache fills with it. */
  onInvalidate?: () => void;
  /**
   * The replay position a standby-read answer shared through Redis must have reached to be taken
   * (replicas.readFloor): another process may fill under the new generation from a standby that has
   * not replayed the change yet, before its own notification arrives.
   */
  readFloor?: () => bigint;
  /** Key prefix in Redis (deployments or tests sharing a Redis). */
  redisPrefix?: string;
}
