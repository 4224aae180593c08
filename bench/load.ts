/** A small closed-loop load generator: `concurrency` workers, bounded by request count and time. */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

let ipCounter = 0;
/** Each request looks like a different client so the per-IP public limiter (300/min) does not cap the bench. */
function nextIp(): string {
  ipCounter++;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

export async function runLoad(
  base: string,
  nextPath: () => string,
  opts: { requests: number; seconds: number; concurrency: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const deadline = Date.now() + opts.seconds * 1000;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (issued < opts.requests && Date.now() < deadline) {
      issued++;
      const t0 = process.hrtime.bigint();
      try {
        const res = await fetch(base + nextPath(), { headers: { 'X-Forwarded-For': nextIp() } });
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
      } catch {
        errors++;
      }
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? 0,
  };
}
