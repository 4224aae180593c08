import { execFile } from 'node:child_process';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

/**
 * The only Redocly problems accepted, each a single path named by its JSON pointer (Redocly's
 * ignore mechanism, not a rule turned off): every other path and every other rule of
 * `recommended` must pass without an error or a warning.
 *
 * no-ambiguous-paths compares path templates alone (any `{param}` segment may equal any literal;
 * packages/core/src/rules/common/no-ambiguous-paths.ts), so `/fundraisers/slug/{slug}` and
 * `/fundraisers/{id}/<literal>` are a pair for it whatever their parameters' schemas say. Both
 * shapes are the spec's own and may not change: `GET /fundraisers/slug/{slug}`
 * (the interface's own path) beside the campaign's sub-resources below. They never compete
 * for a URL: `{id}` is documented and validated as a uuid, which `slug` is not.
 */
const ACCEPTED_AMBIGUOUS_PATHS: Record<string, string> = {
  '/api/v1/fundraisers/{id}/stats': 'the interface: a campaign sub-resource',
  '/api/v1/fundraisers/{id}/share-channels': 'the interface: a campaign sub-resource',
  '/api/v1/fundraisers/{id}/shares': 'the interface: track a share event',
  '/api/v1/fundraisers/{id}/share-impact': 'the interface: share impact',
  '/api/v1/fundraisers/{id}/comments': 'the interface: a campaign sub-resource',
  '/api/v1/fundraisers/{id}/milestones': 'the interface: a campaign sub-resource',
  '/api/v1/fundraisers/{id}/endorse': 'the interface: a campaign sub-resource',
  '/api/v1/fundraisers/{id}/endorsement-requests': 'the interface: a campaign sub-resource',
  '/api/v1/fundraisers/{id}/media': 'the interface: a campaign sub-resource',
  '/api/v1/fundraisers/{id}/outcome-report': 'the interface: a campaign sub-resource',
  '/api/v1/fundraisers/{id}/live': 'the live progress stream of a campaign',
};
const SLUG_PATH = '/api/v1/fundraisers/slug/{slug}';

const pointerOf = (p: string) => `#/paths/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`;

interface Problem { rule: string; severity: 'error' | 'warn'; message: string; where?: string; ignored: boolean }

function redoclyLint(doc: unknown): Promise<Problem[]> {
  const helper = path.join(__dirname, '../helpers/redocly-lint.mjs');
  const accepted = { 'no-ambiguous-paths': Object.keys(ACCEPTED_AMBIGUOUS_PATHS).map(pointerOf) };
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [helper, '{}', JSON.stringify(accepted)], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`redocly lint failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout) as Problem[]);
    });
    child.stdin!.end(JSON.stringify(doc));
  });
}

describe('OpenAPI description', () => {
  const { app } = createTestApp();

  test('when /api/v1/openapi.json is validated against the OpenAPI 3.1 schema then it has no errors', async () => {
    const res = await request(app).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    // validate() checks the document against the official schema and resolves every $ref.
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeTruthy();
  });

  test('when the document is linted with Redocly recommended, no rule off, then there are no errors and no warnings', async () => {
    const res = await request(app).get('/api/v1/openapi.json');
    const problems = await redoclyLint(res.body);
    const open = problems.filter((p) => !p.ignored);
    expect(open.map((p) => `${p.severity} ${p.rule} ${p.where ?? ''}: ${p.message}`)).toEqual([]);
    // Each accepted problem still occurs, and only as the slug pair: a stale entry or another
    // ambiguity under an accepted pointer fails here.
    const accepted = problems.filter((p) => p.ignored);
    expect(accepted.map((p) => p.where).sort()).toEqual(Object.keys(ACCEPTED_AMBIGUOUS_PATHS).map(pointerOf).sort());
    for (const p of accepted) {
      expect(p.rule).toBe('no-ambiguous-paths');
      expect(p.message).toContain(`\`${SLUG_PATH}\``);
    }
  }, 240_000);

  test('when a path is accepted as ambiguous then its {id} is documented as a uuid, which the literal `slug` can never be', async () => {
    const doc = (await request(app).get('/api/v1/openapi.json')).body;
    expect(doc.paths[SLUG_PATH].get).toBeDefined();
    for (const p of Object.keys(ACCEPTED_AMBIGUOUS_PATHS)) {
      const item = doc.paths[p] as Record<string, { parameters?: Array<{ name: string; in: string; schema: { format?: string; pattern?: string } }> }>;
      expect(item).toBeDefined();
      for (const op of Object.values(item)) {
        const id = op.parameters!.find((x) => x.in === 'path' && x.name === 'id')!;
        expect({ p, format: id.schema.format }).toEqual({ p, format: 'uuid' });
        expect(new RegExp(id.schema.pattern!).test('slug')).toBe(false);
      }
    }
  });
});
