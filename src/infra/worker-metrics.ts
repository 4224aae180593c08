import express, { type Express } from 'express';
import type { Config } from '../config';
import { metricsEndpoint } from './metrics';
import { applyTrustProxy } from './trust-proxy';

/**
 * The worker's GET /metrics listener (WORKER_METRICS_PORT): the API's endpoint under the same
 * TRUST_PROXY, so "loopback clients only" means the same client on both ports.
 */
export function workerMetricsApp(config: Pick<Config, 'METRICS_TOKEN' | 'TRUST_PROXY'>): Express {
  const app = express();
  app.disable('x-powered-by');
  applyTrustProxy(app, config.TRUST_PROXY);
  app.get('/metrics', metricsEndpoint(config.METRICS_TOKEN));
  return app;
}
