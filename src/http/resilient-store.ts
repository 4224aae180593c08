import { MemoryStore, type ClientRateLimitInfo, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import type { RedisStore } from 'rate-limit-redis';
import { throughCircuit, type RedisCircuit } from '../infra/redis';

/**
 * A rate-limit store that counts in Redis while it answers and in the process while it does not
 * (docs/decisions/0011-outages-answer-503.md): a limit keeps limiting through a Redis outage, per process,
 * instead of failing open, and goes back to the shared buckets when the circuit closes.
 */
export class ResilientStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private readonly local = new MemoryStore();
  private options: Options | null = null;
  private loaded: Promise<boolean> | null = null;

  constructor(
    private readonly shared: RedisStore,
    private readonly circuit: RedisCircuit,
  ) {
    this.prefix = shared.prefix;
    circuit.on('change', (state) => {
      // Redis may have restarted without the scripts (NOSCRIPT is retried by the store itself)
      // or never have loaded them: load again on the next shared call.
      if (state === 'shared') this.loaded = null;
    });
  }

  init(options: Options): void {
    this.options = options;
    this.local.init(options);
  }

  // rate-limit-redis loads its Lua scripts in init(); a load that failed (Redis was down at start)
  // would fail every later call, so it is retried here until it succeeds.
  private load(): Promise<boolean> {
    if (!this.loaded) {
      const options = this.options;
      this.loaded = this.shared.init(options!).then(
        () => true,
        (err: unknown) => {
          this.loaded = null;
          throw err;
        },
      );
    }
    return this.loaded;
  }

  private run<T>(shared: () => Promise<T>, local: () => Promise<T> | T): Promise<T> {
    if (!this.options) return Promise.resolve(local()); // not initialised: never touch Redis half-configured
    return throughCircuit(
      this.circuit,
      async () => {
        await this.load();
        return shared();
      },
      async () => local(),
    );
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.run(() => this.shared.get(key), () => this.local.get(key));
  }
  increment(key: string): Promise<IncrementResponse> {
    return this.run(() => this.shared.increment(key), () => this.local.increment(key));
  }
  decrement(key: string): Promise<void> {
    return this.run(() => this.shared.decrement(key), () => this.local.decrement(key));
  }
  resetKey(key: string): Promise<void> {
    return this.run(() => this.shared.resetKey(key), () => this.local.resetKey(key));
  }
  shutdown(): void {
    void this.local.shutdown();
  }
}
