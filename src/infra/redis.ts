import { EventEmitter } from 'node:events';
import Redis from 'ioredis';
import type { Logger } from './logger';

/** A Redis command that takes longer than this counts as a failure: Redis is an accelerator, never a wait. */
export const REDIS_COMMAND_TIMEOUT_MS = 250;
/** While the circuit is open, Redis is probed (PING) this often. */
export const REDIS_PROBE_MS = 1000;

/**
 * The Redis client of a process: commands fail at once while disconnected (no offline queue that
 * parks requests), time out after REDIS_COMMAND_TIMEOUT_MS, and reconnect in the background.
 */
export function createRedis(url: string, log?: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 1000,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2000),
    lazyConnect: false,
  });
  // ioredis logs an unhandled 'error' event; the circuit reports the switch once instead.
  redis.on('error', () => undefined);
  circuitOf(redis, log);
  return redis;
}

export type RedisState = 'shared' | 'local';

/**
 * Whether the shared (Redis) state is in use or the per-process fallback. Opens on a lost
 * connection or a failed/slow command; closes on the connection's 'ready' or a good probe.
 * Emits 'change' with the new RedisState on each switch, and logs one line per switch.
 */
export class RedisCircuit extends EventEmitter {
  private up: boolean;
  private probe: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly log?: Logger,
  ) {
    super();
    // One listener per rate limiter and cache of the process.
    this.setMaxListeners(0);
    // 'wait': a lazyConnect client connects on its first command (tests build those).
    this.up = redis.status === 'ready' || redis.status === 'wait';
    redis.on('ready', () => this.set(true));
    redis.on('close', () => this.set(false));
    redis.on('end', () => this.stopProbing());
  }

  get available(): boolean {
    return this.up;
  }

  get state(): RedisState {
    return this.up ? 'shared' : 'local';
  }

  /** A command failed or timed out: fall back to per-process state until Redis answers again. */
  failure(err?: unknown): void {
    this.set(false, err);
  }

  private set(up: boolean, err?: unknown): void {
    if (up === this.up) {
      if (!up) this.startProbing();
      return;
    }
    this.up = up;
    if (up) {
      this.stopProbing();
      this.log?.info({ redis: 'shared' }, 'redis available: rate limits, CAPTCHA risk and caches use shared state');
    } else {
      this.startProbing();
      this.log?.warn(
        { redis: 'local', err: err instanceof Error ? err.message : undefined },
        'redis unavailable: rate limits, CAPTCHA risk and caches use per-process state',
      );
    }
    this.emit('change', this.state);
  }

  // A frozen Redis keeps its connection open, so no 'ready' comes back: a PING tells.
  private startProbing(): void {
    if (this.probe || this.redis.status === 'end') return;
    this.probe = setInterval(() => {
      if (this.redis.status !== 'ready') return; // 'ready' closes the circuit by itself
      this.redis.ping().then(
        () => this.set(true),
        () => undefined,
      );
    }, REDIS_PROBE_MS);
    this.probe.unref();
  }

  private stopProbing(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
  }
}

const circuits = new WeakMap<Redis, RedisCircuit>();

/** The circuit of a client (made on first use); read `.state` or listen to 'change' for a metric. */
export function circuitOf(redis: Redis, log?: Logger): RedisCircuit {
  let c = circuits.get(redis);
  if (!c) circuits.set(redis, (c = new RedisCircuit(redis, log)));
  return c;
}

/** 'shared' while Redis is in use, 'local' while the per-process fallback is; null without Redis. */
export function redisState(redis: Redis | null): RedisState | null {
  return redis ? circuitOf(redis).state : null;
}

/**
 * Runs `shared` while the circuit is closed, else `local`; a failing `shared` opens the circuit
 * and the call is answered by `local`, so a Redis fault never reaches the request.
 */
export async function throughCircuit<T>(circuit: RedisCircuit, shared: () => Promise<T>, local: () => Promise<T>): Promise<T> {
  if (circuit.available) {
    try {
      return await shared();
    } catch (err) {
      circuit.failure(err);
    }
  }
  return local();
}
