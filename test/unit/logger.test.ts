import { spawn } from 'node:child_process';
import { createLogger } from '../../src/infra/logger';
import { logCapture } from '../helpers/log-capture';
import { ROOT, until } from '../helpers/processes';

/** Runs `code` in a child process with src/infra/logger.ts's logger as `log` (level info); its stdout as it comes. */
function child(code: string) {
  // node itself with tsx's loader (not the tsx CLI, which runs the code in a second process that a kill would miss).
  const proc = spawn(process.execPath, ['--import', 'tsx', '-e', `const { createLogger } = require('./src/infra/logger'); const log = createLogger('info'); ${code}`], { cwd: ROOT });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.on('close', resolve));
  return { proc, output: () => out, exited };
}

describe('the log', () => {
  test('a request or answer logged whole carries no headers, so no credential or cookie', () => {
    const { lines, dest } = logCapture();
    const log = createLogger('info', dest);
    log.info(
      {
        req: { id: 'r1', method: 'GET', url: '/api/v1/me', headers: { authorization: 'Bearer secret-token', cookie: 'sid=secret-session' } },
        res: { statusCode: 200, headers: { 'set-cookie': 'sid=secret-session' } },
      },
      'request completed',
    );
    expect(lines).toEqual([expect.objectContaining({ req: { id: 'r1', method: 'GET', url: '/api/v1/me' }, res: { statusCode: 200 }, msg: 'request completed' })]);
    expect(JSON.stringify(lines)).not.toMatch(/secret/);
  });

  test('a buffered line reaches stdout within a second while the process runs, and pending lines are written when it exits', async () => {
    const running = child(`log.info('first'); setTimeout(() => { log.info('second'); process.exit(0); }, 60_000);`);
    try {
      // The 200 ms flush: the line comes out long before the buffer would fill.
      await until('the first line', () => (running.output().includes('"msg":"first"') ? true : undefined), 60_000);
    } finally {
      running.proc.kill('SIGKILL');
      await running.exited;
    }
    const exiting = child(`for (let i = 0; i < 3; i += 1) log.info('line ' + i); process.exit(0);`);
    expect(await exiting.exited).toBe(0);
    expect(exiting.output().match(/"msg":"line \d"/g)).toEqual(['"msg":"line 0"', '"msg":"line 1"', '"msg":"line 2"']);
  });

  test('when stdout breaks (its reader gone), the process loses its log lines, not its life', async () => {
    const running = child(`const t = setInterval(() => log.info('x'.repeat(2000)), 2); setTimeout(() => { clearInterval(t); process.exit(0); }, 1500);`);
    running.proc.stdout.once('data', () => running.proc.stdout.destroy());
    expect(await running.exited).toBe(0);
  });
});
