import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { AppContext } from '../../src/context';
import type { PaymentProcessor } from '../../src/integrations/payments';
import { aroundRawTransactions } from '../../src/db/raw-transaction';

/**
 * The transactions open around the running code. `db.transaction(handler)` runs its handler
 * inside this store, so everything the handler starts (awaited or not) carries the transaction
 * with it; whether it is still open is asked at the moment of a processor call. Unlike a global
 * counter, concurrent requests and jobs never see each other's transactions.
 */
const around = new AsyncLocalStorage<Knex.Transaction[]>();
const tracked = new WeakSet<object>();
/** Handler-less transactions (`await db.transaction()`) escape the store: counted, so a guard can refuse them. */
let untracked = 0;

/** Patches the knex instance (once) so its transactions are known to the guard. Every context of a test file shares testDb(). */
export function trackTransactions(db: Knex): void {
  if (tracked.has(db)) return;
  tracked.add(db);
  const original = db.transaction.bind(db) as (...args: unknown[]) => unknown;
  Object.defineProperty(db, 'transaction', {
    configurable: true,
    value(handler?: unknown, config?: unknown) {
      if (typeof handler !== 'function') {
        untracked += 1;
        return original(handler, config);
      }
      const run = handler as (trx: Knex.Transaction) => unknown;
      return original((trx: Knex.Transaction) => around.run([...(around.getStore() ?? []), trx], () => run(trx)), config);
    },
  });
  // The processor webhook's transactions are begun on the pg connection, past db.transaction.
  aroundRawTransactions(db, (trx, run) => around.run([...(around.getStore() ?? []), trx], run));
}

/** Whether the calling code runs inside a transaction that has not committed or rolled back yet. */
export function insideOpenTransaction(): boolean {
  return (around.getStore() ?? []).some((trx) => !trx.isCompleted());
}

export interface ProcessorGuard {
  /** Every processor method called, in order. */
  calls: string[];
  /** A line (and stack) per call made while a transaction was open, or per untracked transaction. */
  violations: string[];
  /** Puts the processor the guard wrapped back on the context. */
  restore(): void;
}

/**
 * Wraps `ctx.payments` (whatever it is now: the sandbox or a test double) so that any processor
 * method called while a knex transaction is open records a violation and throws. Tests run
 * their flows through it and expect `violations` to be empty.
 */
export function guardProcessor(ctx: AppContext): ProcessorGuard {
  trackTransactions(ctx.db);
  const inner = ctx.payments;
  const untrackedBefore = untracked;
  const calls: string[] = [];
  const violations: string[] = [];
  ctx.payments = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const name = String(prop);
        calls.push(name);
        if (untracked > untrackedBefore) violations.push(`db.transaction() without a handler was used: the guard cannot see it`);
        if (insideOpenTransaction()) {
          const message = `payments.${name} called inside an open database transaction`;
          violations.push(`${message}\n${new Error().stack}`);
          throw new Error(message);
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    calls,
    violations,
    restore: () => {
      ctx.payments = inner;
    },
  };
}

/**
 * A processor double: the context's processor with some methods replaced (each receives the
 * real method to call through). Install it before guardProcessor so the guard sees its calls.
 */
export function processorDouble(
  ctx: AppContext,
  overrides: { [K in keyof PaymentProcessor]?: PaymentProcessor[K] extends (...a: infer A) => infer R ? (real: (...a: A) => R, ...a: A) => R : never },
): () => void {
  const inner = ctx.payments;
  ctx.payments = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      const override = (overrides as Record<string | symbol, ((...a: unknown[]) => unknown) | undefined>)[prop];
      if (typeof value !== 'function' || !override) return value;
      const real = (...a: unknown[]) => (value as (...x: unknown[]) => unknown).apply(target, a);
      return (...args: unknown[]) => override(real, ...args);
    },
  });
  return () => {
    ctx.payments = inner;
  };
}
