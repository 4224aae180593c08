import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { ifNoneMatchHits } from '../../src/http/caching';

afterAll(closeDb);

const t = createTestApp();
const db = t.ctx.db;
const api = '/api/v1/fundraisers';
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  owner = await createUser(db, { name: 'Cache Owner' });
  other = await createUser(db);
});

const mk = (over: Partial<FundraiserRow> = {}) => createFundraiser(db, owner.id, over);
const token = () => 'zqcache' + randomUUID().replace(/[^a-f]/g, '').slice(0, 8);

/** SQL statements the app sends to Postgres while `fn` runs (the round trips of one request). */
async function statementsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const on = (q: { sql: string }) => seen.push(q.sql);
  db.on('query', on);
  try {
    await fn();
  } finally {
    db.off('query', on);
  }
  return seen;
}

describe('one round trip per hot public read', () => {
  test('when a guest reads a campaign by slug or id, then the app sends Postgres one statement', async () => {
    const f = await mk({ category_id: (await db('categories').first('id')).id });
    for (const path of [`${api}/slug/${f.slug}`, `${api}/${f.id}`, `${api}/slug/${f.slug}?lang=es`]) {
      const sql = await statementsDuring(() => request(t.app).get(path).expect(200));
      expect({ path, statements: sql.length }).toEqual({ path, statements: 1 });
    }
  });

  test('when a guest lists campaigns, then each request is one statement, cached total or not', async () => {
    const app = createTestApp(); // its own count cache
    const tok = token();
    await mk({ title: `Round trip ${tok}` });
    const first = await statementsDuring(() => request(app.app).get(api).expect(200));
    const second = await statementsDuring(() => request(app.app).get(api).query({ offset: 1 }).expect(200));
    const searched = await statementsDuring(() => request(app.app).get(api).query({ q: tok }).expect(200));
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    // A search runs in its own short transaction (begin, statement timeout, the query, commit).
    expect(searched.filter((s) => /from fundraisers/.test(s))).toHaveLength(1);
  });

  test('when the page is past the end, then the total is still counted', async () => {
    const tok = token();
    await mk({ title: `Past end ${tok}` });
    const res = await request(t.app).get(api).query({ q: tok, offset: 5 }).expect(200);
    expect(res.body).toEqual({ data: [], pagination: { limit: 20, offset: 5, total: 1 } });
  });
});

describe('HTTP caching of public reads', () => {
  test('when a guest reads a public campaign, then it is publicly cacheable for 30 s with an ETag, and If-None-Match answers 304', async () => {
    const f = await mk();
    for (const path of [`${api}/slug/${f.slug}`, `${api}/${f.id}`]) {
      const res = await request(t.app).get(path).expect(200);
      expect(res.headers['cache-control']).toBe('public, max-age=30');
      expect(res.headers.vary).toMatch(/Authorization/);
      const etag = res.headers.etag;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await request(t.app).get(path).set('If-None-Match', etag);
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.etag).toBe(etag);
      const weak = await request(t.app).get(path).set('If-None-Match', `"other", W/${etag}`);
      expect(weak.status).toBe(304);
    }
  });

  test('when the campaign changes, then the old ETag no longer matches', async () => {
    const f = await mk();
    const before = await request(t.app).get(`${api}/${f.id}`).expect(200);
    await db('fundraisers').where({ id: f.id }).update({ title: 'A changed title for caching' });
    const after = await request(t.app).get(`${api}/${f.id}`).set('If-None-Match', before.headers.etag);
    expect(after.status).toBe(200);
    expect(after.body.data.title).toBe('A changed title for caching');
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  test('when the owner or another signed-in user reads, then the answer is private, no-store', async () => {
    const f = await mk({ beneficiary_contact: 'secret@x.test' });
    const mine = await request(t.app).get(`${api}/${f.id}`).set(await authHeaders(t, owner)).expect(200);
    expect(mine.body.data.beneficiary_contact).toBe('secret@x.test');
    expect(mine.headers['cache-control']).toBe('private, no-store');
    const theirs = await request(t.app).get(`${api}/slug/${f.slug}`).set(await authHeaders(t, other)).expect(200);
    expect(theirs.headers['cache-control']).toBe('private, no-store');
  });

  test('when a guest reads an unlisted campaign or the owner reads a draft, then nothing is publicly cacheable', async () => {
    const unlisted = await mk({ visibility: 'unlisted' });
    const res = await request(t.app).get(`${api}/slug/${unlisted.slug}`).expect(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const draft = await mk({ status: 'draft' });
    const own = await request(t.app).get(`${api}/${draft.id}`).set(await authHeaders(t, owner)).expect(200);
    expect(own.headers['cache-control']).toBe('private, no-store');
    const guest = await request(t.app).get(`${api}/${draft.id}`);
    expect(guest.status).toBe(404);
    expect(guest.headers['cache-control']).toBeUndefined();
  });

  test('when a guest lists campaigns, then the list is publicly cacheable, varies by language, and revalidates with 304', async () => {
    const tok = token();
    await mk({ title: `Listed ${tok}` });
    const res = await request(t.app).get(api).query({ q: tok }).expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.headers.vary).toMatch(/Accept-Language/);
    const again = await request(t.app).get(api).query({ q: tok }).set('If-None-Match', res.headers.etag);
    expect(again.status).toBe(304);
    await mk({ title: `Listed again ${tok}` });
    const changed = await request(t.app).get(api).query({ q: tok }).set('If-None-Match', res.headers.etag);
    expect(changed.status).toBe(200);
    expect(changed.body.pagination.total).toBe(2);
  });

  test('when If-None-Match is absent, another tag or *, then only a listed tag or * matches', () => {
    expect(ifNoneMatchHits(undefined, '"a"')).toBe(false);
    expect(ifNoneMatchHits('"b"', '"a"')).toBe(false);
    expect(ifNoneMatchHits('*', '"a"')).toBe(true);
    expect(ifNoneMatchHits('"b", W/"a"', '"a"')).toBe(true);
  });
});
