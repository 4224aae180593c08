import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

// The broad list total (no q, no near) is cached for 30 s; these pin what the cache may not do.
const t = createTestApp();
const db = t.ctx.db;

const list = async (qs = '') => (await request(t.app).get(`/api/v1/fundraisers${qs}`)).body as {
  data: Array<{ id: string }>;
  pagination: { limit: number; offset: number; total: number };
};

const publishable = () => ({
  title: `Campaign ${randomUUID()}`,
  summary: 'Help us rebuild',
  story_html: '<p>Our community centre burned down and we need to rebuild it.</p>',
  goal_amount_cents: 500_000,
  cover_image: 'https://img.example.test/cover.jpg',
});

describe('GET /fundraisers pagination.total', () => {
  test('when the cached total is behind the rows, then total is never below offset + rows on the page', async () => {
    const owner = await createUser(db);
    await createFundraiser(db, owner.id);
    const before = (await list()).pagination.total; // primes the cache
    // Written behind the service's back (another writer, a stale cache): the cached total lags.
    for (let i = 0; i < 3; i++) await createFundraiser(db, owner.id);
    const page = await list(`?offset=${before - 1}&limit=100`);
    expect(page.data.length).toBe(4);
    expect(page.pagination.total).toBeGreaterThanOrEqual(page.pagination.offset + page.data.length);
  });

  test('when a campaign is created live, published or deleted through the API, then the total changes at once', async () => {
    const owner = await createUser(db, { private_contact_verified: true });
    const auth = await authHeaders(t, owner);
    const start = (await list()).pagination.total;

    const created = await request(t.app).post('/api/v1/fundraisers').set(auth).send({ ...publishable(), status: 'active' });
    expect(created.status).toBe(201);
    expect(created.body.data.status).toBe('active');
    expect((await list()).pagination.total).toBe(start + 1);

    const draft = await request(t.app).post('/api/v1/fundraisers').set(auth).send({ ...publishable(), status: 'draft' });
    expect((await list()).pagination.total).toBe(start + 1);
    const published = await request(t.app).patch(`/api/v1/fundraisers/${draft.body.data.id}`).set(auth).send({ status: 'active' });
    expect(published.body.data.status).toBe('active');
    expect((await list()).pagination.total).toBe(start + 2);

    expect((await request(t.app).delete(`/api/v1/fundraisers/${created.body.data.id}`).set(auth)).status).toBe(200);
    expect((await list()).pagination.total).toBe(start + 1);
  });
});
