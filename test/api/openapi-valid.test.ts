import SwaggerParser from '@apidevtools/swagger-parser';
import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';

afterAll(closeDb);

describe('OpenAPI description', () => {
  test('when /api/v1/openapi.json is validated against the OpenAPI 3.1 schema then it has no errors', async () => {
    const { app } = createTestApp();
    const res = await request(app).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    // validate() checks the document against the official schema and resolves every $ref.
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeTruthy();
  });
});
