import { readdir } from 'node:fs/promises';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** The one registry every family of the service is on (metrics.ts), with prom-client's process and Node.js defaults. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/**
 * Default families that cost a scrape one pass over every open handle: with thousands of live
 * streams, listing each socket (the active handles and resources) and reading /proc/self/fd
 * synchronously held the event loop about 15 ms per scrape at 10,000 streams. The handle lists
 * are dropped (connections and streams have gauges of their own); open descriptors are counted off
 * the event loop (the directory is read on libuv's thread pool).
 */
export const HEAVY_DEFAULT_FAMILIES = ['nodejs_active_handles', 'nodejs_active_handles_total', 'nodejs_active_resources', 'nodejs_active_resources_total', 'process_open_fds'];
for (const name of HEAVY_DEFAULT_FAMILIES) registry.removeSingleMetric(name);
if (process.platform === 'linux') {
  new Gauge({
    name: 'process_open_fds',
    help: 'Number of open file descriptors.',
    registers: [registry],
    async collect() {
      // One entry is the directory's own descriptor while it is read.
      this.set((await readdir('/proc/self/fd').catch(() => [null])).length - 1);
    },
  });
}
