import { execFileSync } from 'node:child_process';
import path from 'node:path';

// The boundary rules live in eslint.config.js; these cases pin what they must refuse and allow,
// so a loosened pattern cannot pass unnoticed.
const ROOT = path.resolve(__dirname, '../..');

const refused: Array<[string, string]> = [
  ['src/modules/comments/c.ts', "import { x } from '../fundraisers/serialize';"],
  ['src/modules/comments/c.ts', "import type { x } from '../fundraisers/fundraisers.repo';"],
  ['src/modules/comments/c.ts', "import { x } from '../../modules/fundraisers';"],
  ['src/jobs/j.ts', "import { x } from '../modules/fundraisers/fundraisers.repo';"],
  ['src/app.ts', "import { x } from './modules/docs/docs.routes';"],
  ['src/integrations/mail/m.ts', "import { x } from '../../jobs/cover-tint';"],
  ['src/integrations/mail/m.ts', "import { x } from '../../http/errors';"],
  ['src/integrations/idp/local/l.ts', "import { x } from '../../../modules/auth';"],
  ['src/modules/donations/d.ts', "import x from 'stripe';"],
  ['src/modules/donations/d.ts', "import { x } from '../../integrations/payments/stripe-events';"],
  // A module file (<name>.module.ts) is read by the collector src/modules/index.ts alone.
  ['src/modules/comments/c.ts', "import x from './comments.module';"],
  ['src/modules/comments/c.ts', "import type x from '../donations/donations.module';"],
  ['src/modules/integrity.ts', "import x from './donations/donations.module';"],
  ['src/modules/define-module.ts', "import x from './ledger/ledger.module';"],
  ['src/jobs/j.ts', "import x from '../modules/payouts/payouts.module';"],
  ['src/app.ts', "import x from './modules/docs/docs.module';"],
];
const allowed: Array<[string, string]> = [
  ['src/modules/comments/c.ts', "import { x } from '../fundraisers';"],
  ['src/modules/comments/c.ts', "import { x } from './comments.repo';"],
  ['src/modules/comments/c.ts', "import { x } from '../../http/errors';"],
  ['src/modules/index.ts', "import x from './comments/comments.routes';"],
  ['src/modules/index.ts', "import x from './comments/comments.module';"],
  ['src/jobs/j.ts', "import { x } from '../modules/fundraisers';"],
  ['src/integrations/mail/m.ts', "import { x } from '../../infra/jobs';"],
  ['src/modules/donations/d.ts', "import type { x } from '../../integrations/payments';"],
];

/**
 * Lints every case in one child process: ESLint loads its config with a dynamic import, which
 * jest's module sandbox refuses. Answers, per case, whether no-restricted-imports fired.
 */
function lintCases(cases: Array<[string, string]>): boolean[] {
  const script = `
    const { ESLint } = require('eslint');
    const path = require('node:path');
    const cases = JSON.parse(process.argv[1]);
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const out = [];
      for (const [file, source] of cases) {
        const [r] = await eslint.lintText(source + '\\nexport const used = x;\\n', { filePath: path.join(process.cwd(), file) });
        out.push(r.messages.some((m) => m.ruleId === 'no-restricted-imports'));
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script, JSON.stringify(cases)], { cwd: ROOT, encoding: 'utf8' }));
}

describe('module boundaries (eslint no-restricted-imports)', () => {
  jest.setTimeout(120_000);
  let results: boolean[] = [];
  beforeAll(() => {
    results = lintCases([...refused, ...allowed]);
  });

  it.each(refused.map((c, i) => [...c, i] as const))('when %s has `%s`, then lint refuses the import', (_file, _source, i) => {
    expect(results[i]).toBe(true);
  });

  it.each(allowed.map((c, i) => [...c, refused.length + i] as const))('when %s has `%s`, then lint allows the import', (_file, _source, i) => {
    expect(results[i]).toBe(false);
  });
});
