// First: the instrumentations patch express, pg and ioredis as they are required.
import './tracing';
import { buildApp } from './app';
import { applyServerTimeouts } from './http/server-timeouts';
import { main, runProcess } from './runtime';

// The API process; it also runs the job worker unless RUN_JOBS=false (then `npm run worker` does).
// On SIGTERM it drains (runProcess): /readyz 503, SHUTDOWN_DRAIN_MS of serving, then in-flight work.
main('Failed to start', () =>
  runProcess('API', (ctx, config, fail) => {
    if (config.RUN_JOBS) ctx.jobs.start();
    const server = buildApp(ctx).listen(config.PORT, config.HOST, () => {
      ctx.log.info({ port: config.PORT, host: config.HOST }, `API listening on ${config.PUBLIC_URL}/api/v1`);
    });
    applyServerTimeouts(server, config.HTTP_IDLE_TIMEOUT_MS);
    server.on('error', fail);
    return server;
  }, { drain: true }),
);
