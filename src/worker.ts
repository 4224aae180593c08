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
  const handle = await connectDatabase(config);
  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL) : null;
  const ctx = createContext({ config, db: handle.db, log, redis });
  registerJobs(ctx);
  ctx.jobs.start();
  log.info('worker started');
  const stop = async () => {
    await ctx.jobs.stop();
    await redis?.quit().catch(() => undefined);
    await handle.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err) => {
  process.stderr.write(`Worker failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
