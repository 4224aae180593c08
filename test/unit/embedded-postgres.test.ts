import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/db/embedded';

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

  test('when the data folder was made by another Postgres major then the start refuses in one line naming the folder and the fix, and leaves it alone', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-other-major-'));
    try {
      fs.chmodSync(dir, 0o755);
      const data = path.join(dir, 'pg');
      fs.mkdirSync(data);
      fs.writeFileSync(path.join(data, 'PG_VERSION'), '17\n');
      const err = await startEmbeddedPostgres(data, { notice: () => undefined }).then(() => null, (e: Error) => e);
      expect(err?.message).toMatch(/holds a PostgreSQL 17 cluster, but the embedded binaries are PostgreSQL 15: move that folder aside/);
      expect(err?.message).not.toContain('\n');
      expect(fs.readdirSync(data)).toEqual(['PG_VERSION']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
