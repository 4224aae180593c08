/**
 * Writes src/schema.d.ts from the OpenAPI document the API builds from its route tables, so the
 * client's types are the server's own. Run from the repository root: `npm run client:generate`.
 * `--check` exits 1 (and writes nothing) when the committed file is out of date.
 */
import fs from 'node:fs';
import path from 'node:path';
import { renderSchemaTypes } from './render';

const target = path.join(__dirname, '../src/schema.d.ts');

async function main(): Promise<void> {
  const text = await renderSchemaTypes();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (current !== text) {
      console.error('clients/typescript/src/schema.d.ts is out of date: run npm run client:generate');
      process.exit(1);
    }
    console.log('clients/typescript/src/schema.d.ts is up to date');
    return;
  }
  fs.writeFileSync(target, text);
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
