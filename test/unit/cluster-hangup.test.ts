import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, until } from '../helpers/processes';

/**
 * `npm run cluster` tells a closed terminal's SIGHUP (stop) from `kill -HUP` (roll the API
 * processes) by whether its terminal is still there. Tried on a real pseudo-terminal: util-linux's
 * `script` runs a probe on one, and killing `script` closes it as closing a terminal window does.
 */
const hasScript = spawnSync('sh', ['-c', 'command -v script'], { stdio: 'ignore' }).status === 0;
const probe = `
  const fs = require('node:fs');
  const { hasTerminal } = require(${JSON.stringify(path.join(ROOT, 'scripts/cluster/util.ts'))});
  const out = process.argv[1];
  fs.writeFileSync(out, 'started ' + hasTerminal() + '\\n');
  process.on('SIGHUP', () => { fs.appendFileSync(out, 'hup ' + hasTerminal() + '\\n'); process.exit(0); });
  setInterval(() => undefined, 1000);
`;

async function onTerminal(hangUp: (script: ReturnType<typeof spawn>, probePid: number) => void): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-hangup-'));
  const out = path.join(dir, 'out');
  const pidFile = path.join(dir, 'pid');
  const cmd = `echo $$ > ${pidFile}; exec ${process.execPath} --import tsx -e "$PROBE" ${out}`;
  const script = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: ROOT, env: { ...process.env, PROBE: probe }, stdio: ['pipe', 'ignore', 'ignore'] });
  try {
    await until('the probe on its terminal', () => fs.existsSync(out) && fs.readFileSync(out, 'utf8').includes('started'), 30_000);
    hangUp(script, Number(fs.readFileSync(pidFile, 'utf8')));
    await until('the probe to see SIGHUP', () => fs.readFileSync(out, 'utf8').includes('hup'), 30_000);
    return fs.readFileSync(out, 'utf8').trim().split('\n');
  } finally {
    script.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

(hasScript ? describe : describe.skip)('a closed terminal and kill -HUP', () => {
  test('when the terminal closes, then SIGHUP comes with the terminal gone (the cluster stops)', async () => {
    expect(await onTerminal((script) => script.kill('SIGKILL'))).toEqual(['started true', 'hup false']);
  });

  test('when kill -HUP is sent, then the terminal is still there (the cluster rolls its API processes)', async () => {
    expect(await onTerminal((_, pid) => process.kill(pid, 'SIGHUP'))).toEqual(['started true', 'hup true']);
  });
});
