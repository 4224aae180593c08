/**
 * Records the OpenAPI document's examples from the test suite: runs jest with
 * RECORD_OPENAPI_EXAMPLES set (the route pipeline then writes the first success of each
 * operation), and merges what was recorded into docs/openapi/examples.json (a new recording of an
 * operation replaces its old one; `--fresh` starts from nothing).
 * `npm run openapi:examples [-- [--fresh] <jest args>]`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXAMPLES_FILE, type OperationExample } from '../src/http/openapi/openapi-examples';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-examples-'));
const jest = spawnSync(
  process.execPath,
  [require.resolve('jest/bin/jest'), '--testPathIgnorePatterns', 'fuzz-openapi', ...process.argv.slice(2).filter((a) => a !== '--fresh')],
  { stdio: 'inherit', env: { ...process.env, RECORD_OPENAPI_EXAMPLES: dir } },
);
if (jest.status !== 0) console.warn(`jest exited with ${jest.status}: keeping what was recorded`);

const fresh = process.argv.includes('--fresh') || !fs.existsSync(EXAMPLES_FILE);
const recorded: Record<string, OperationExample> = fresh ? {} : JSON.parse(fs.readFileSync(EXAMPLES_FILE, 'utf8'));
for (const name of fs.readdirSync(dir)) {
  const { key, example } = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { key: string; example: OperationExample };
  recorded[key] = example;
}
fs.rmSync(dir, { recursive: true, force: true });
const sorted = Object.fromEntries(Object.keys(recorded).sort().map((k) => [k, recorded[k]]));
fs.mkdirSync(path.dirname(EXAMPLES_FILE), { recursive: true });
fs.writeFileSync(EXAMPLES_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${Object.keys(sorted).length} operations have an example in ${path.relative(process.cwd(), EXAMPLES_FILE)}`);
