import type { Express } from 'express';
import type Redis from 'ioredis';
import { buildApp, type BuildOptions } from '../../src/app';
import { parseConfig, type Config } from '../../src/config';
import type { AppContext } from '../../src/context';
import { createContext } from '../../src/create-context';
import { createDb, type Db } from '../../src/db/knex';
import { createLogger } from '../../src/infra/logger';
import type { RouteModule } from '../../src/http/define-routes';
import { registerJobs } from '../../src/jobs';
import { modulesFor } from '../../src/modules';
import { holdToContract } from './openapi-contract';

let sharedDb: Db | null = null;

/** One knex pool per test file (jest worker module registry), closed in afterAll by closeDb(). */
export function testDb(): Db {
  if (!sharedDb) {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error('TEST_DATABASE_URL is not set: run tests through jest (globalSetup)');
    // Under TEST_PGBOUNCER=1 `url` is PgBouncer in transaction mode and this the direct connection.
    sharedDb = createDb(url, { max: 5, directUrl: process.env.TEST_DIRECT_DATABASE_URL });
  }
  return sharedDb;
}

export async function closeDb(): Promise<void> {
  if (sharedDb) await sharedDb.destroy();
  sharedDb = null;
}

export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PUBLIC_URL: 'http://api.test',
    SITE_URL: 'http://site.test',
    RUN_JOBS: 'false',
    ...env,
  });
}

export interface TestApp {
  app: Express;
  ctx: AppContext;
  /** Runs every due background job now (mail, images, ...). */
  runJobs(): Promise<number>;
}

/** A fresh app (own rate-limit buckets, own caches) on the shared test database. */
export function createTestApp(opts: { env?: Record<string, string | undefined>; redis?: Redis | null } = {}): TestApp {
  const config = testConfig(opts.env);
  const ctx = createContext({ config, db: testDb(), log: createLogger(config.LOG_LEVEL), redis: opts.redis ?? null });
  // The real credential resolver (cookies, API keys, ID tokens) is installed by createContext.
  registerJobs(ctx);
  const app = buildContractApp(ctx);
  return { app, ctx, runJobs: () => ctx.jobs.drain() };
}

/**
 * buildApp for tests: every answer the app gives is held against the OpenAPI document it serves
 * (openapi-contract.ts), and a mismatch fails the test that made the request. Tests build their
 * apps through here, never through buildApp itself (test/unit/openapi-contract.test.ts checks).
 */
export function buildContractApp(ctx: AppContext, modules: RouteModule[] = modulesFor(ctx.config), opts: BuildOptions = {}): Express {
  return holdToContract(buildApp(ctx, modules, opts), modules);
}
