import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded';

async function answers(url: string): Promise<boolean> {
  const c = new Client({ connectionString: url });
  try {
    await c.connect();
    await c.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

describe('embedded Postgres launcher', () => {
  test('when a second process opens a running cluster then it shares it and leaves stopping to the owner; data survives a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-emb-'));
    fs.chmodSync(dir, 0o777);
    const dataDir = path.join(dir, 'pg');
    try {
      const owner = await startEmbeddedPostgres(dataDir, { database: 'app' });
      const c = new Client({ connectionString: owner.url });
      await c.connect();
      await c.query('create table kept (v int); insert into kept values (42)');
      await c.end();

      const second = await startEmbeddedPostgres(dataDir, { database: 'app' });
      expect(second.url).toBe(owner.url);
      await second.stop();
      expect(await answers(owner.url)).toBe(true);

      await owner.stop();
      expect(await answers(owner.url)).toBe(false);

      const again = await startEmbeddedPostgres(dataDir, { database: 'app' });
      const c2 = new Client({ connectionString: again.url });
      await c2.connect();
      const r = await c2.query('select v from kept');
      await c2.end();
      await again.stop();
      expect(r.rows).toEqual([{ v: 42 }]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
