import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_KEYS } from '../../src/config';
import { ROOT, prose } from '../helpers/markdown';

/**
 * docs/operations/settings.md against the configuration schema (src/config.ts), both ways: every
 * variable the schema reads has a row, and every row names only variables the schema reads.
 * Rows live in tables whose first column is headed `variable`; the scripts' own variables sit in
 * a table headed `script variable` and are not the service's.
 */
function documented(): string[] {
  const md = prose(fs.readFileSync(path.join(ROOT, 'docs/operations/settings.md'), 'utf8'));
  const names: string[] = [];
  let inTable = false;
  for (const line of md.split('\n')) {
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const first = line.split('|')[1]!.trim();
    if (/^-+$/.test(first.replace(/:/g, ''))) continue;
    if (!inTable && first === 'variable') {
      inTable = true;
      continue;
    }
    if (inTable) names.push(...[...first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));
  }
  return names;
}

describe('the settings reference', () => {
  test('when the tables are read, then they name some variables (the parser finds the rows)', () => {
    expect(documented().length).toBeGreaterThan(50);
  });

  test('when the schema is compared with the reference, then every variable of the schema is documented', () => {
    const docs = new Set(documented());
    expect(CONFIG_KEYS.filter((k) => !docs.has(k))).toEqual([]);
  });

  test('when the reference is compared with the schema, then every documented variable exists', () => {
    const keys = new Set(CONFIG_KEYS);
    expect(documented().filter((k) => !keys.has(k))).toEqual([]);
  });

  test('when the reference is read, then no variable has two rows', () => {
    const all = documented();
    expect(all.filter((k, i) => all.indexOf(k) !== i)).toEqual([]);
  });
});
