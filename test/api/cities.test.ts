import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { resolveLocation } from '../../src/integrations/geo';
import { closeDb, createTestApp } from '../helpers/app';
import { createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';

afterAll(closeDb);

interface City { label: string; lat: number; lng: number; count: number }

const t = createTestApp();
const db = t.ctx.db;
let owner: TestUser;

beforeAll(async () => {
  owner = await createUser(db);
});

const mk = (overrides: Partial<FundraiserRow>) => createFundraiser(db, owner.id, overrides);

async function cities(app = t.app): Promise<City[]> {
  const res = await request(app).get('/api/v1/fundraisers/cities');
  expect(res.status).toBe(200);
  expect(res.headers['ratelimit-limit']).toBe('300');
  return res.body.data;
}

describe('GET /fundraisers/cities', () => {
  test('when cities have active public campaigns then one row per city with count, 2-decimal point, sorted by count then label', async () => {
    const tag = randomUUID().slice(0, 6);
    const a = { location_label: `Aaa ${tag}, ZZ`, location_lat: 12.34567, location_lng: -45.67891 };
    const b = { location_label: `Bbb ${tag}, Testland`, location_lat: -1.005, location_lng: 100.004 };
    const c = { location_label: `Ccc ${tag}, Testland`, location_lat: 5, location_lng: 5 };
    const only = { location_label: `Ended only ${tag}, ZZ`, location_lat: 1, location_lng: 1 };
    await mk(a);
    await mk(b);
    await mk(b);
    await mk({ ...c, end_date: '2999-01-01' });
    await mk(c);
    // Not counted: ended, past end date, private, unlisted, draft, pending, deleted.
    await mk({ ...a, status: 'ended' });
    await mk({ ...a, end_date: '2000-01-01' });
    await mk({ ...a, visibility: 'private' });
    await mk({ ...a, visibility: 'unlisted' });
    await mk({ ...a, status: 'draft' });
    await mk({ ...a, status: 'pending' });
    await mk({ ...a, deleted_at: new Date() });
    await mk({ ...only, status: 'ended' });
    await mk({ location: 'Unknown place', location_label: null, location_lat: null, location_lng: null });

    const rows = (await cities(createTestApp().app)).filter((r) => r.label.includes(tag));
    expect(rows).toEqual([
      { label: `Bbb ${tag}, Testland`, lat: -1.01, lng: 100, count: 2 },
      { label: `Ccc ${tag}, Testland`, lat: 5, lng: 5, count: 2 },
      { label: `Aaa ${tag}, ZZ`, lat: 12.35, lng: -45.68, count: 1 },
    ]);
  });

  test('when the whole list is read then it is ordered by count descending then label', async () => {
    const rows = await cities(createTestApp().app);
    for (let i = 1; i < rows.length; i++) {
      const [p, r] = [rows[i - 1]!, rows[i]!];
      expect(p.count > r.count || (p.count === r.count && p.label <= r.label)).toBe(true);
    }
  });

  test('when campaigns are placed through the gazetteer then US labels are City, ST and others City, Country', async () => {
    const austin = resolveLocation('Austin, Texas')!;
    const kyiv = resolveLocation('Kyiv')!;
    await mk({ location: 'Austin, Texas', location_label: austin.label, location_lat: austin.lat, location_lng: austin.lng });
    await mk({ location: 'Kyiv', location_label: kyiv.label, location_lat: kyiv.lat, location_lng: kyiv.lng });
    const rows = await cities(createTestApp().app);
    expect(rows.find((r) => r.label === 'Austin, TX')).toMatchObject({ lat: 30.27, lng: -97.74 });
    expect(rows.find((r) => r.label === 'Kyiv, Ukraine')).toMatchObject({ lat: 50.45, lng: 30.52 });
  });

  test('when a campaign is added after a read then the same app serves the cached rows (up to 5 minutes)', async () => {
    const app = createTestApp();
    const label = `Cached ${randomUUID().slice(0, 6)}, ZZ`;
    expect((await cities(app.app)).some((r) => r.label === label)).toBe(false);
    await mk({ location_label: label, location_lat: 3, location_lng: 3 });
    expect((await cities(app.app)).some((r) => r.label === label)).toBe(false);
    await app.ctx.cache.del('discovery:cities');
    expect((await cities(app.app)).some((r) => r.label === label)).toBe(true);
  });

  test('when /fundraisers/cities is requested then it is not taken for a fundraiser id', async () => {
    const res = await request(t.app).get('/api/v1/fundraisers/cities');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(true);
  });
});
