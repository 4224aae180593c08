import { main, runProcess } from './runtime';

/** A worker process: runs queued jobs only (docker-compose's `worker` service). */
main('Worker failed to start', () =>
  runProcess('worker', (ctx) => {
    ctx.jobs.start();
    ctx.log.info('worker started');
    return null;
  }),
);
