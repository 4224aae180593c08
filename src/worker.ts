import { loadConfigOrExit } from './config';
import { createContext } from './context';
import { connectDatabase } from './db/connect';
import { registerJobs } from './jobs';
import { createLogger } from './infra/logger';
import { createRedis } from './infra/redis';

/** A worker process: runs queued jobs only (docker-compose's `worker` service). */
async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL);
  // The process stops the embedded cluster itself on SIGINT/SIGTERM (see db/embedded.ts).
  const handle = await connectDatabase(config, { callerHandlesSignals: true });
  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL) : null;
  const ctx = createContext({ config, db: handle.db, log, redis });
  registerJobs(ctx);
  ctx.jobs.start();
  log.info('worker started');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await ctx.jobs.stop();
    await redis?.quit().catch(() => undefined);
    await handle.close().catch((err: unknown) => log.warn({ err }, 'stop: database close failed'));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err) => {
  process.stderr.write(`Worker failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
