import type { ZodType } from 'zod';
import { exampleKey, loadExamples } from '../../src/http/openapi/openapi-examples';
import { modulesFor } from '../../src/modules';

/**
 * Operations the suite never answers with a JSON success, each with its reason; everything else
 * must carry an example recorded from the suite (`npm run openapi:examples`).
 */
const NO_EXAMPLE: Record<string, string> = {};

const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/+$/, '') || '/';

const operations = modulesFor({ STRIPE_SECRET_KEY: undefined }).flatMap((mod) =>
  mod.routes.map((r) => ({ r, key: exampleKey(r.method, toOpenApiPath((mod.root ? '' : '/api/v1') + mod.prefix + (r.path === '/' ? '' : r.path))) })),
);

describe('OpenAPI examples (docs/openapi/examples.json, recorded from the suite)', () => {
  const examples = loadExamples();

  test('when an operation answers JSON then it has an example', () => {
    const missing = operations
      .filter(({ r, key }) => r.response && !r.produces && (r.status ?? 200) !== 204 && !NO_EXAMPLE[key])
      .filter(({ key }) => !examples[key])
      .map(({ key }) => key);
    expect(missing).toEqual([]);
  });

  test('when the schemas change then every recorded example still matches its operation (request and response)', () => {
    const wrong: string[] = [];
    for (const { r, key } of operations) {
      const ex = examples[key];
      if (!ex) continue;
      if (r.response && ex.response !== undefined && (ex.status === (r.status ?? 200))) {
        const res = (r.response as ZodType).safeParse(ex.response);
        if (!res.success) wrong.push(`${key} response: ${res.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
      }
      if (r.body && ex.request !== undefined) {
        const req = (r.body as ZodType).safeParse(ex.request);
        if (!req.success) wrong.push(`${key} request: ${req.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('when an example is recorded then no secret is in it', () => {
    const text = JSON.stringify(examples);
    expect(text).not.toMatch(/ak_live_(?!3kTq9ZbW1xExampleKeyShownOnce)[A-Za-z0-9]/);
    expect(text).not.toMatch(/sk_(live|test)_[A-Za-z0-9]{8}/);
  });
});
