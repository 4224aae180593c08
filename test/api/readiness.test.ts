import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';

afterAll(closeDb);

/** /readyz and /healthz (docs/decisions/0015-graceful-stop.md): not ready while draining or while migrations are pending. */
describe('readiness', () => {
  test('when a migration is pending, then /readyz answers 503 and /healthz 200; once applied, /readyz is 200', async () => {
    const t = createTestApp();
    const db = testDb();
    const last = await db('knex_migrations').orderBy('id', 'desc').first();
    await db('knex_migrations').where({ id: last.id }).delete();
    try {
      const pending = await request(t.app).get('/readyz');
      expect(pending.status).toBe(503);
      expect(pending.body.message).toMatch(/migrations pending/);
      await request(t.app).get('/healthz').expect(200);
    } finally {
      await db('knex_migrations').insert(last);
    }
    await request(t.app).get('/readyz').expect(200, { status: 'ready' });
  });

  test('when the process is draining, then /readyz answers 503 at once and /healthz 200', async () => {
    const t = createTestApp();
    await request(t.app).get('/readyz').expect(200);
    t.ctx.lifecycle.draining = true;
    const res = await request(t.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/shutting down/);
    await request(t.app).get('/healthz').expect(200, { status: 'ok' });
  });
});
