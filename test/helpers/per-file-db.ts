import { Client } from 'pg';
import { takeContractMismatches } from './openapi-contract';

/**
 * Every answer the tests' apps give is held against the OpenAPI document (openapi-contract.ts);
 * the test that made a request the document does not describe fails here, with the list.
 */
function failOnContractMismatches(): void {
  const found = takeContractMismatches();
  if (found.length) throw new Error(`Answers that depart from the OpenAPI document:\n  ${[...new Set(found)].join('\n  ')}`);
}
afterEach(failOnContractMismatches);
afterAll(failOnContractMismatches);

/**
 * Each test file gets its own database, cloned from the migrated template that globalSetup
 * built. Files then never see each other's rows: one file's runJobs() cannot send another
 * file's queued mail, and counts and flags start from the same state every time.
 */
const template = process.env.TEST_TEMPLATE_URL;
if (template) {
  const t = new URL(template);
  const templateName = t.pathname.slice(1);
  const name = `${templateName}_f${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const own = new URL(template);
  own.pathname = `/${name}`;
  process.env.TEST_DATABASE_URL = own.toString();
  // TEST_PGBOUNCER=1 (global-setup): the app's database goes through PgBouncer, LISTEN and the job engine direct.
  const bouncerPort = process.env.TEST_PGBOUNCER_PORT;
  if (bouncerPort) {
    const pooled = new URL(own);
    pooled.hostname = '127.0.0.1';
    pooled.port = bouncerPort;
    process.env.TEST_DIRECT_DATABASE_URL = own.toString();
    process.env.TEST_DATABASE_URL = pooled.toString();
  }

  beforeAll(async () => {
    const admin = new URL(template);
    admin.pathname = '/postgres';
    const c = new Client({ connectionString: admin.toString() });
    await c.connect();
    try {
      // Two workers cloning the same template at once can collide; the clone is quick, so retry.
      for (let attempt = 0; ; attempt += 1) {
        try {
          await c.query(`create database "${name}" template "${templateName}"`);
          break;
        } catch (err) {
          if (attempt >= 20 || !/being accessed by other users/.test(String((err as Error).message))) throw err;
          await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
        }
      }
    } finally {
      await c.end();
    }
  });
}
