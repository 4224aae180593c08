import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';
import { createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const db = t.ctx.db;
let owner: TestUser;

/** A letters-only word no other test uses, so each test scopes the shared list with `q`. */
function token(): string {
  return 'zq' + randomUUID().replace(/[^a-f]/g, '').slice(0, 10);
}

function mk(overrides: Partial<FundraiserRow> = {}) {
  return createFundraiser(db, owner.id, overrides);
}

function list(query: Record<string, string | number | string[]>) {
  return request(t.app).get('/api/v1/fundraisers').query(query);
}

const ids = (res: request.Response) => (res.body.data as Array<{ id: string }>).map((c) => c.id);

async function categoryId(slug: string): Promise<number> {
  const row = await db('categories').where({ slug }).first();
  return row.id;
}

beforeAll(async () => {
  owner = await createUser(db, { name: 'Card Owner' });
});

describe('GET /fundraisers card and visibility', () => {
  test('when listing then each card has the FundraiserCard fields and pagination', async () => {
    const tok = token();
    const cat = await categoryId('medical');
    const f = await mk({
      title: `Card ${tok}`, raised_cents: 2500, goal_amount_cents: 10000, donor_count: 3, category_id: cat,
      end_date: '2999-05-01', location: 'Austin, TX', cover_image_focal_x: 0.25,
    });
    const res = await list({ q: tok });
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('300');
    expect(res.body.pagination).toEqual({ limit: 20, offset: 0, total: 1 });
    expect(res.body.data).toEqual([
      {
        id: f.id, title: `Card ${tok}`, slug: f.slug, summary: 'A test campaign', goal_amount_cents: 10000,
        total_raised_cents: 2500, percentage_funded: 25, currency: 'USD', status: 'active', type: 'personal',
        is_project: false, category: String(cat), category_name: 'Medical', cover_image: f.cover_image,
        cover_image_focal_x: 0.25, cover_image_focal_y: null, cover_tint: null, location: 'Austin, TX',
        end_date: '2999-05-01', donor_count: 3,
        owner: { id: owner.id, name: 'Card Owner', avatar: null, profile_slug: expect.any(String) },
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
  });

  test('when campaigns are private, unlisted, draft, pending, paused, rejected or deleted then they are never listed', async () => {
    const tok = token();
    const shown = await mk({ title: `Shown ${tok}` });
    const ended = await mk({ title: `Ended ${tok}`, status: 'ended' });
    await mk({ title: `Private ${tok}`, visibility: 'private' });
    await mk({ title: `Unlisted ${tok}`, visibility: 'unlisted' });
    await mk({ title: `Draft ${tok}`, status: 'draft' });
    await mk({ title: `Pending ${tok}`, status: 'pending' });
    await mk({ title: `Paused ${tok}`, status: 'paused' });
    await mk({ title: `Rejected ${tok}`, status: 'rejected' });
    await mk({ title: `Deleted ${tok}`, deleted_at: new Date() });
    for (const status of ['all', 'active', 'closed']) {
      const res = await list({ q: tok, status, limit: 100 });
      expect(res.status).toBe(200);
      expect(ids(res).sort()).toEqual(
        (status === 'active' ? [shown.id] : status === 'closed' ? [ended.id] : [shown.id, ended.id]).sort(),
      );
    }
  });

  test('when the OpenAPI description is read then the list response documents FundraiserCard', async () => {
    const res = await request(t.app).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const op = res.body.paths['/api/v1/fundraisers'].get;
    const schema = op.responses['200'].content['application/json'].schema;
    expect(schema.properties.data.items).toEqual({ $ref: '#/components/schemas/FundraiserCard' });
    const card = res.body.components.schemas.FundraiserCard;
    expect(card.description).toMatch(/^FundraiserCard/);
    expect(res.body.components.schemas.Fundraiser.properties).toHaveProperty('trustStatus');
    expect(Object.keys(card.properties)).toEqual(expect.arrayContaining(['id', 'total_raised_cents', 'percentage_funded', 'owner', 'distance_mi']));
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['status', 'q', 'near', 'radius_mi']));
  });
});

describe('GET /fundraisers status', () => {
  test('when status is active, closed, ended or all then live / ended-or-past-end / both are listed', async () => {
    const tok = token();
    const live = await mk({ title: `Live ${tok}`, end_date: '2999-01-01' });
    const open = await mk({ title: `Open ${tok}`, end_date: null });
    const pastEnd = await mk({ title: `Past ${tok}`, end_date: '2000-01-01' });
    const ended = await mk({ title: `Ended ${tok}`, status: 'ended' });
    const get = async (status?: string) => ids(await list(status ? { q: tok, status } : { q: tok })).sort();
    expect(await get('active')).toEqual([live.id, open.id].sort());
    expect(await get('closed')).toEqual([pastEnd.id, ended.id].sort());
    expect(await get('ended')).toEqual([pastEnd.id, ended.id].sort());
    expect(await get('all')).toEqual([live.id, open.id, pastEnd.id, ended.id].sort());
    expect(await get()).toEqual([live.id, open.id, pastEnd.id, ended.id].sort());
  });

  test('when status is another value then 400 Invalid status with allowed', async () => {
    for (const status of ['open', 'ACTIVE', 'draft']) {
      const res = await list({ status });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'Invalid status', message: expect.any(String), allowed: ['active', 'closed', 'ended', 'all'] });
    }
  });
});

describe('GET /fundraisers filters', () => {
  test('when category is given by id, slug or a name in any locale then only that category is listed', async () => {
    const tok = token();
    const animals = await categoryId('animals');
    const a = await mk({ title: `Pets ${tok}`, category_id: animals });
    await mk({ title: `Other ${tok}`, category_id: await categoryId('education') });
    await mk({ title: `None ${tok}`, category_id: null });
    for (const category of [String(animals), 'animals', 'ANIMALS', 'Animals', 'Животные', 'Тварини', 'animales']) {
      const res = await list({ q: tok, category });
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual([a.id]);
    }
    const unknown = await list({ q: tok, category: 'no-such-category' });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ data: [], pagination: { limit: 20, offset: 0, total: 0 } });
  });

  test('when projects is true, false or omitted then projects, fundraisers or both are listed', async () => {
    const tok = token();
    const p = await mk({ title: `Project ${tok}`, is_project: true });
    const f = await mk({ title: `Fund ${tok}`, is_project: false });
    expect(ids(await list({ q: tok, projects: 'true' }))).toEqual([p.id]);
    expect(ids(await list({ q: tok, projects: 'false' }))).toEqual([f.id]);
    expect(ids(await list({ q: tok })).sort()).toEqual([p.id, f.id].sort());
    expect(ids(await list({ q: tok, projects: 'maybe' })).sort()).toEqual([p.id, f.id].sort());
  });

  test('when sort=raised then most raised first, otherwise newest first', async () => {
    const tok = token();
    const old = await mk({ title: `Same ${tok}`, raised_cents: 9000, created_at: new Date(Date.now() - 3 * 86400e3) });
    const mid = await mk({ title: `Same ${tok}`, raised_cents: 100, created_at: new Date(Date.now() - 2 * 86400e3) });
    const young = await mk({ title: `Same ${tok}`, raised_cents: 5000, created_at: new Date(Date.now() - 86400e3) });
    expect(ids(await list({ q: tok, sort: 'raised' }))).toEqual([old.id, young.id, mid.id]);
    expect(ids(await list({ q: tok }))).toEqual([young.id, mid.id, old.id]);
    expect(ids(await list({ q: tok, sort: 'bogus' }))).toEqual([young.id, mid.id, old.id]);
  });

  test('when limit and offset are given then they are clamped and page the list', async () => {
    const tok = token();
    const rows = [];
    for (let i = 0; i < 3; i++) rows.push(await mk({ title: `Page ${tok}`, created_at: new Date(Date.now() - (i + 1) * 60e3) }));
    const page = await list({ q: tok, limit: 1, offset: 1 });
    expect(ids(page)).toEqual([rows[1]!.id]);
    expect(page.body.pagination).toEqual({ limit: 1, offset: 1, total: 3 });
    const cases: Array<[Record<string, string | string[]>, number, number]> = [
      [{}, 20, 0],
      [{ limit: '1000' }, 100, 0],
      [{ limit: '100' }, 100, 0],
      [{ limit: '0' }, 20, 0],
      [{ limit: '-3' }, 20, 0],
      [{ limit: 'abc' }, 20, 0],
      [{ limit: '2.7' }, 2, 0],
      [{ offset: '-5' }, 20, 0],
      [{ offset: 'abc' }, 20, 0],
      [{ offset: '2' }, 20, 2],
      [{ limit: ['2', 'abc'], offset: ['1', '9'] }, 2, 1],
    ];
    for (const [query, limit, offset] of cases) {
      const res = await list({ q: tok, ...query });
      expect(res.status).toBe(200);
      expect(res.body.pagination).toEqual({ limit, offset, total: 3 });
      expect(res.body.data).toHaveLength(Math.max(0, Math.min(limit, 3 - offset)));
    }
  });

  test('when unknown, odd or repeated parameters are sent then the list still answers 200', async () => {
    const odd = ['a & | ! :*', '"unterminated', "it's", '!!!', '()', '<script>', '%', '\\', 'a:*', '   ', 'x'.repeat(1000), 'the'];
    for (const q of odd) {
      const res = await list({ q, foo: 'bar' });
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body.data)).toBe(true);
    }
    const repeated = await list({ status: ['active', 'closed'], q: ['a', 'b'], sort: ['raised', 'x'], category: ['1', '2'], lang: ['xx', 'ru'] });
    expect(repeated.status).toBe(200);
    const weird = await list({ lang: 'klingon', projects: '', radius_mi: '5', sort: '', category: '' });
    expect(weird.status).toBe(200);
    // A NUL byte cannot reach Postgres text: it is dropped, never a 500.
    const nul: Array<Record<string, string>> = [{ q: 'a\u0000b' }, { category: '\u0000' }, { status: 'active\u0000' }, { lang: 'r\u0000u' }];
    for (const p of nul) {
      const res = await list(p);
      expect(res.status).toBe(200);
    }
  });
});

describe('GET /fundraisers search', () => {
  test('when q matches a title and another campaign story then the title match ranks first', async () => {
    const tok = token();
    const inStory = await mk({ title: 'Quiet campaign', story_html: `<p>Somewhere deep in the story: <b>${tok}</b></p>` });
    const inTitle = await mk({ title: `Help ${tok} now`, created_at: new Date(Date.now() - 86400e3) });
    const res = await list({ q: tok });
    expect(ids(res)).toEqual([inTitle.id, inStory.id]);
  });

  test('when q matches the summary, the category name or the location then the campaign is found', async () => {
    const tok = token();
    const loc = `Zyx${tok}ville`;
    const bySummary = await mk({ title: 'Plain one', summary: `summary mentions ${tok}` });
    const byLocation = await mk({ title: 'Plain two', location: loc });
    expect(ids(await list({ q: tok }))).toEqual([bySummary.id]);
    expect(ids(await list({ q: loc }))).toEqual([byLocation.id]);
    const pets = await mk({ title: `Plain three ${tok}`, category_id: await categoryId('animals') });
    const noCat = await mk({ title: `Plain four ${tok}` });
    const res = await list({ q: `${tok} Тварини`, limit: 100 });
    expect(ids(res)).toContain(pets.id);
    expect(ids(res)).not.toContain(noCat.id);
  });

  test('when q is a stemmed form or a misspelling then full-text and trigram matching still find it', async () => {
    const tok = token();
    const f = await mk({ title: `Vaccinations for ${tok} shelters`, category_id: null });
    expect(ids(await list({ q: `${tok} shelter`, limit: 100 }))).toContain(f.id); // english stemming
    expect(ids(await list({ q: `vacinations ${tok}`, limit: 100 }))).toContain(f.id); // trigram
  });

  test('when a translation carries the word then search finds the campaign in that language', async () => {
    const tok = token();
    const f = await mk({ title: `English title ${tok}` });
    const ruWord = 'собаки' + tok;
    await db('fundraiser_translations').insert({ fundraiser_id: f.id, lang: 'ru', title: `Помощь ${ruWord}` });
    expect(ids(await list({ q: ruWord }))).toEqual([f.id]);
  });
});

describe('GET /fundraisers language', () => {
  let f: FundraiserRow;
  beforeAll(async () => {
    f = await mk({ title: 'Original title', summary: 'Original summary', category_id: await categoryId('medical'), location: `Lang${token()}` });
    await db('fundraiser_translations').insert({ fundraiser_id: f.id, lang: 'ru', title: 'Русский заголовок', summary: 'Русское описание' });
  });
  const card = async (req: request.Test) => {
    const res = await req;
    expect(res.status).toBe(200);
    return res.body.data[0];
  };
  const base = () => request(t.app).get('/api/v1/fundraisers');

  test('when lang=ru then title, summary and category name come from the translation', async () => {
    const c = await card(base().query({ q: f.location!, lang: 'ru' }));
    expect(c).toMatchObject({ id: f.id, title: 'Русский заголовок', summary: 'Русское описание', category_name: 'Медицина' });
  });

  test('when no language is asked for then the original text and English category name are shown', async () => {
    const c = await card(base().query({ q: f.location! }));
    expect(c).toMatchObject({ title: 'Original title', summary: 'Original summary', category_name: 'Medical' });
  });

  test('when the lang cookie is ru then the card is translated, and lang=en overrides it', async () => {
    expect(await card(base().query({ q: f.location! }).set('Cookie', 'lang=ru'))).toMatchObject({ title: 'Русский заголовок' });
    expect(await card(base().query({ q: f.location!, lang: 'en' }).set('Cookie', 'lang=ru'))).toMatchObject({ title: 'Original title' });
  });

  test('when Accept-Language prefers Russian then the card is translated, and the cookie wins over it', async () => {
    expect(await card(base().query({ q: f.location! }).set('Accept-Language', 'ru-RU,ru;q=0.9,en;q=0.5'))).toMatchObject({ title: 'Русский заголовок' });
    expect(await card(base().query({ q: f.location! }).set('Accept-Language', 'ru').set('Cookie', 'lang=en'))).toMatchObject({ title: 'Original title' });
  });

  test('when the language has no translation then the original text is kept with the localised category', async () => {
    expect(await card(base().query({ q: f.location!, lang: 'es' }))).toMatchObject({ title: 'Original title', category_name: 'Medicina' });
  });
});

describe('GET /fundraisers near', () => {
  // A point in the South Pacific: no real city (and so no other test's campaign) is near it.
  const LAT = -40;
  const LNG = -130;
  const MI_PER_DEG_LAT = 69.09;
  const at = (mi: number) => ({ location_lat: LAT + mi / MI_PER_DEG_LAT, location_lng: LNG, location_label: 'Ocean, Test' });
  const near = `${LAT},${LNG}`;
  let r5a: FundraiserRow, r5b: FundraiserRow, r12: FundraiserRow, r30: FundraiserRow, r90: FundraiserRow, r150: FundraiserRow;
  let rHalf: FundraiserRow, r3: FundraiserRow;

  beforeAll(async () => {
    r5a = await mk({ ...at(5), raised_cents: 100 });
    r5b = await mk({ ...at(5), raised_cents: 900 });
    r12 = await mk({ ...at(12), raised_cents: 5000 });
    r30 = await mk({ ...at(30) });
    r90 = await mk({ ...at(90) });
    r150 = await mk({ ...at(150) });
    rHalf = await mk({ location_lat: 40 + 0.5 / MI_PER_DEG_LAT, location_lng: 170 });
    r3 = await mk({ location_lat: 40 + 3 / MI_PER_DEG_LAT, location_lng: 170 });
    await mk({ ...at(1), visibility: 'private' });
    await mk({ ...at(1), status: 'draft' });
    await mk({ ...at(1), deleted_at: new Date() });
    await mk({ location: 'Ocean, Test', location_lat: null, location_lng: null });
  });

  test('when near is given then only campaigns within 20 miles are listed, nearest first then most raised, with distance_mi', async () => {
    const res = await list({ near });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([r5b.id, r5a.id, r12.id]);
    expect(res.body.pagination.total).toBe(3);
    const d = res.body.data.map((c: { distance_mi: number }) => c.distance_mi);
    expect(d[0]).toBeCloseTo(5, 0);
    expect(d[2]).toBeCloseTo(12, 0);
    expect(Number.isInteger(d[2] * 10)).toBe(true);
  });

  test('when radius_mi is set, too large, too small or non-numeric then it is used or clamped to 1..100 (default 20)', async () => {
    expect(ids(await list({ near, radius_mi: '50' }))).toEqual([r5b.id, r5a.id, r12.id, r30.id]);
    expect(ids(await list({ near, radius_mi: '1000' }))).toEqual([r5b.id, r5a.id, r12.id, r30.id, r90.id]);
    expect(ids(await list({ near, radius_mi: 'abc' }))).toEqual([r5b.id, r5a.id, r12.id]);
    expect(ids(await list({ near: '40,170', radius_mi: '0.1' }))).toEqual([rHalf.id]);
    expect(ids(await list({ near: '40,170', radius_mi: '4' }))).toEqual([rHalf.id, r3.id]);
    expect(ids(await list({ near, radius_mi: '100' }))).not.toContain(r150.id);
  });

  test('when near is combined with sort=raised then distance still orders the list', async () => {
    expect(ids(await list({ near, sort: 'raised' }))).toEqual([r5b.id, r5a.id, r12.id]);
  });

  test('when radius_mi comes without near then it is ignored and no distance_mi is sent', async () => {
    const res = await list({ radius_mi: '5', q: 'zzzunlikelyword' });
    expect(res.status).toBe(200);
    const all = await list({ radius_mi: '5' });
    expect(all.body.data.every((c: Record<string, unknown>) => !('distance_mi' in c))).toBe(true);
  });

  test('when near is invalid, empty, out of range or repeated then 400 invalid_near', async () => {
    const bad: Array<string | string[]> = ['', 'abc', '91,0', '-90.5,0', '0,181', '0,-180.1', '1,2,3', '1', '1,', ',2', '0x1,2', '1e1,2', 'NaN,1', ['1,2', '3,4']];
    for (const value of bad) {
      const res = await list({ near: value });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_near', message: expect.any(String) });
    }
    const edge = await list({ near: '90,-180' });
    expect(edge.status).toBe(200);
    const spaced = await list({ near: ' -40 , -130 ' });
    expect(ids(spaced)).toEqual([r5b.id, r5a.id, r12.id]);
  });
});
