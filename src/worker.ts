// First: the instrumentations patch pg and ioredis as they are required.
import './tracing';
import http from 'node:http';
import { observeDatabase } from './infra/metrics';
import { workerMetricsApp } from './infra/worker-metrics';
import { main, runProcess } from './runtime';

/**
 * A worker process: runs queued jobs and the crontab only (docker-compose's `worker` service);
 * several may run at once. With WORKER_METRICS_PORT it also answers GET /metrics there.
 */
main('Worker failed to start', () =>
  runProcess('worker', (ctx, config, fail) => {
    ctx.jobs.start();
    ctx.log.info('worker started');
    if (config.WORKER_METRICS_PORT === undefined) return null;
    observeDatabase(ctx.db);
    const server = http.createServer(workerMetricsApp(config)).listen(config.WORKER_METRICS_PORT, config.HOST);
    server.on('error', fail);
    return server;
  }),
);
