import autocannon from 'autocannon';

/**
 * The benches' load generator: autocannon (a dev dependency, so `npm ci` brings it; wrk was a
 * system package the project never installed). Cycles through `paths`, each request from its
 * own client address (X-Forwarded-For), so the per-IP public limiter never throttles the load.
 */
export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx/3xx answers plus connection errors and timeouts. */
  errors: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
}

let clientSeq = 0;

export async function runLoad(baseUrl: string, paths: string[], o: LoadOptions): Promise<LoadResult> {
  if (paths.length === 0) throw new Error('runLoad: no paths');
  const thread = (clientSeq += 1) * 1_000_003;
  let n = 0;
  const result = await autocannon({
    url: baseUrl,
    connections: o.connections,
    duration: o.seconds,
    timeout: 10,
    requests: [
      {
        setupRequest: (req) => {
          n += 1;
          const k = thread + n;
          req.path = paths[n % paths.length]!;
          req.headers = {
            ...o.headers,
            'x-forwarded-for': `10.${Math.floor(k / 65536) % 256}.${Math.floor(k / 256) % 256}.${k % 256}`,
          };
          return req;
        },
      },
    ],
  });
  const requests = result.requests.total;
  const seconds = result.duration;
  return {
    requests,
    seconds,
    rps: requests / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}
