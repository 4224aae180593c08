import http from 'node:http';
import type { LoadResult } from './load-gen';

/**
 * Requests at a steady rate, whatever the answers do (an open loop): each is sent when its time
 * comes and timed from then, so a stall shows in the latencies of every request it held up
 * (no coordinated omission). autocannon's rate limit sends each second's quota in one burst at the
 * start of the second, which measures its own queue; this spreads the requests evenly.
 */
export async function steadyLoad(baseUrl: string, paths: string[], o: { rate: number; seconds: number }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const start = performance.now();
  const total = Math.round(o.rate * o.seconds);
  const inflight = new Set<Promise<void>>();
  const one = (due: number, k: number) =>
    new Promise<void>((resolve) => {
      const req = http.get(`${baseUrl}${paths[k % paths.length]}`, { agent, headers: { 'x-forwarded-for': `10.77.${Math.floor(k / 256) % 256}.${k % 256}` }, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - due);
          if (res.statusCode === undefined || res.statusCode >= 400) errors += 1;
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        errors += 1;
        resolve();
      });
    });
  while (sent < total) {
    const now = performance.now();
    // Every request whose time has come goes now, timed from when it was due.
    while (sent < total && start + (sent * 1000) / o.rate <= now) {
      const p = one(start + (sent * 1000) / o.rate, sent);
      inflight.add(p);
      void p.then(() => inflight.delete(p));
      sent += 1;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inflight);
  agent.destroy();
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10 : NaN);
  return { requests: latencies.length, seconds, rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), errors };
}
