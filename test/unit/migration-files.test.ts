import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MigrationFiles } from '../../src/db/knex';

// knex records each migration by name: a database migrated from the sources (tsx, `.ts`) and one
// migrated by the compiled service (`npm start`, `.js`) must agree on every name.
describe('migration files', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    fs.writeFileSync(path.join(dir, '001_a.js'), "exports.up = async () => 'a from js'; exports.down = async () => undefined;\n");
    fs.writeFileSync(path.join(dir, '001_a.js.map'), '{}');
    fs.writeFileSync(path.join(dir, '002_b.ts'), "exports.up = async () => 'b from ts'; exports.down = async () => undefined;\n");
    fs.writeFileSync(path.join(dir, '003_c.d.ts'), 'export {};\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('when a migration is compiled to .js, then it is still named by its .ts file, and the .js is what loads', async () => {
    const files = new MigrationFiles(dir);
    const names = await files.getMigrations();
    expect(names).toEqual(['001_a.ts', '002_b.ts']);
    expect(await (await files.getMigration('001_a.ts')).up({} as never)).toBe('a from js');
    expect(await (await files.getMigration('002_b.ts')).up({} as never)).toBe('b from ts');
  });
});
