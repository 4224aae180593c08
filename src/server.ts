import type { Server } from 'node:http';
import { buildApp } from './app';
import { loadConfigOrExit } from './config';
import { createContext } from './context';
import { connectDatabase } from './db/connect';
import { registerJobs } from './jobs';
import { createLogger } from './infra/logger';
import { createRedis } from './infra/redis';

/** config -> database (embedded or DATABASE_URL) -> migrations -> app.listen; graceful stop. */
async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL);
  const handle = await connectDatabase(config, { log: (m) => log.debug({ pg: m }, 'embedded postgres') });
  log.info({ embedded: handle.embedded }, 'database ready, migrations applied');
  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL) : null;
  const ctx = createContext({ config, db: handle.db, log, redis });
  registerJobs(ctx);
  if (config.RUN_JOBS) ctx.jobs.start();
  const app = buildApp(ctx);
  const server: Server = app.listen(config.PORT, config.HOST, () => {
    log.info({ port: config.PORT, host: config.HOST }, `API listening on ${config.PUBLIC_URL}/api/v1`);
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await ctx.jobs.stop();
    await redis?.quit().catch(() => undefined);
    await handle.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
