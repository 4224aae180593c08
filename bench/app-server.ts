import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app';
import type { Config } from '../src/config';
import type { AppContext } from '../src/context';
import { createContext } from '../src/create-context';
import type { Db } from '../src/db/knex';
import { createLogger } from '../src/infra/logger';
import { registerJobs } from '../src/jobs';

export interface BenchServer {
  ctx: AppContext;
  base: string;
  close(): Promise<void>;
}

/**
 * The app in-process on a loopback port, with a fresh context (own caches). `close` ends what the
 * context opened outside the pool too: the read cache's LISTEN connection kept `npm run bench`
 * alive, idle, after its last line.
 */
export async function startBenchServer(config: Config, db: Db): Promise<BenchServer> {
  const ctx = createContext({ config, db, log: createLogger('silent') });
  registerJobs(ctx);
  const app = buildApp(ctx);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    ctx,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await ctx.jobs.stop();
      await ctx.readCache?.close();
    },
  };
}
