import { workerLogger } from '../../src/infra/jobs-adapters';
import { createLogger } from '../../src/infra/logger';
import { logCapture } from '../helpers/log-capture';

describe("graphile-worker's log lines", () => {
  test('go through pino at their level, except the pool-size advice that does not apply here, which is debug', () => {
    const { lines, dest } = logCapture<{ level: number; msg: string }>();
    const log = workerLogger(createLogger('debug', dest)).scope({});
    log.warn('WARNING: having maxPoolSize (3) smaller than concurrency (4) may lead to non-optimal performance.');
    log.warn('Failed to release job');
    log.info('Worker connected');
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [20, 'jobs: WARNING: having maxPoolSize (3) smaller than concurrency (4) may lead to non-optimal performance.'],
      [40, 'jobs: Failed to release job'],
      [30, 'jobs: Worker connected'],
    ]);
  });
});
