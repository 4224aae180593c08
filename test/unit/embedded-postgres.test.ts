import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

describe('embedded Postgres launcher', () => {
  test('when a second process opens a running cluster then it shares it, leaves stopping to the owner, and data survives a restart', () => {
    const run = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['test/fixtures/embedded-scenario.ts'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toEqual({
      sameUrl: true,
      aliveAfterSecondStops: true,
      aliveAfterOwnerStops: false,
      keptRows: [{ v: 42 }],
    });
  });
});
