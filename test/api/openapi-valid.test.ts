import { execFile } from 'node:child_process';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

/**
 * Redocly `recommended` rules turned off, each with its reason. Everything else must pass
 * without a single error or warning.
 */
const RULES_OFF: Record<string, string> = {
  // {id} is a uuid, so /fundraisers/slug/{slug} never competes with /fundraisers/{id}/stats and the like.
  'no-ambiguous-paths': 'the uuid parameter never matches the literal `slug` segment',
  'operation-4xx-response': 'health checks, the docs page, logout (always 200) and JWKS have no client error to report',
  'operation-2xx-response': 'the verification link and social sign-in routes answer only with redirects (302)',
};

interface Problem { rule: string; severity: 'error' | 'warn'; message: string; where?: string }

function redoclyLint(doc: unknown): Promise<Problem[]> {
  const helper = path.join(__dirname, '../helpers/redocly-lint.mjs');
  const rules = Object.fromEntries(Object.keys(RULES_OFF).map((r) => [r, 'off']));
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [helper, JSON.stringify(rules)], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
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

  test('when the document is linted with Redocly recommended then there are no errors and no warnings', async () => {
    const res = await request(app).get('/api/v1/openapi.json');
    const problems = await redoclyLint(res.body);
    expect(problems.map((p) => `${p.severity} ${p.rule} ${p.where ?? ''}: ${p.message}`)).toEqual([]);
  }, 60_000);
});
