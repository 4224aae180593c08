import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { startTranslateServer } from '../helpers/translate-server';

let tr: Awaited<ReturnType<typeof startTranslateServer>>;
let t: TestApp;
let plain: TestApp; // no TRANSLATE_URL
let owner: TestUser;
let alice: TestUser;
let unverified: TestUser;
let f: FundraiserRow;

const RU = 'Мы закупили материалы для крыши и начали работы на прошлой неделе, спасибо всем за поддержку!';
const EN = 'We bought the roofing materials and started the work last week, thank you all for your support!';
const ES = 'Compramos los materiales para el techo y empezamos las obras la semana pasada, ¡gracias a todos por su apoyo!';

beforeAll(async () => {
  tr = await startTranslateServer();
  t = createTestApp({ env: { TRANSLATE_URL: tr.url, TRANSLATE_API_KEY: 'lt-key' } });
  plain = createTestApp();
  owner = await createUser(t.ctx.db, { name: 'Owner' });
  alice = await createUser(t.ctx.db, { name: 'Alice' });
  unverified = await createUser(t.ctx.db, { email_verified: false });
  f = await createFundraiser(t.ctx.db, owner.id);
});
afterAll(async () => {
  await tr.close();
  await closeDb();
});

const base = (fid: string) => `/api/v1/projects/${fid}/updates`;
async function post(user: TestUser, fid: string, body: Record<string, unknown>, app = t) {
  return request(app.app).post(base(fid)).set(await authHeaders(app, user)).send(body);
}
async function patch(user: TestUser, fid: string, id: string, body: Record<string, unknown>, app = t) {
  return request(app.app).patch(`${base(fid)}/${id}`).set(await authHeaders(app, user)).send(body);
}
const audits = (id: string) => t.ctx.db('audit_log').where({ target_id: id }).orderBy('created_at');
const rows = (id: string) => t.ctx.db('update_translations').where({ update_id: id }).orderBy('lang');

describe('POST /projects/:fundraiserId/updates', () => {
  test('when the owner posts then 201 with the bare update, its language detected and update.posted emitted', async () => {
    const res = await post(owner, f.id, { title: 'Крыша', body: RU });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String), fundraiser_id: f.id, type: 'update', title: 'Крыша', body: RU, language: 'ru',
      like_count: 0, liked_by_me: false, created_at: expect.any(String), edited_at: null,
    });
    const ev = await t.ctx.db('events').where({ type: 'update.posted' }).whereRaw("payload->>'update_id' = ?", [res.body.id]).first();
    expect(ev.payload).toEqual({ update_id: res.body.id, fundraiser_id: f.id, author_user_id: owner.id, created_at: res.body.created_at });
  });

  test('when the jobs run then machine translations exist in every other locale, made through the translator with the API key', async () => {
    const res = await post(owner, f.id, { title: 'Roof', body: EN });
    expect(res.body.language).toBe('en');
    expect(await rows(res.body.id)).toHaveLength(0); // queued, never on the request path
    await t.runJobs();
    const got = await rows(res.body.id);
    expect(got.map((r) => [r.lang, r.source, r.title, r.body, r.outdated])).toEqual([
      ['es', 'machine', '[es] Roof', `[es] ${EN}`, false],
      ['ru', 'machine', '[ru] Roof', `[ru] ${EN}`, false],
      ['uk', 'machine', '[uk] Roof', `[uk] ${EN}`, false],
    ]);
    expect(tr.calls.find((c) => c.q === EN)).toEqual({ q: EN, source: 'en', target: expect.any(String), format: 'text', api_key: 'lt-key' });
  });

  test('when TRANSLATE_URL is unset then the job leaves the translation rows absent', async () => {
    const res = await post(owner, f.id, { body: ES }, plain);
    expect(res.body.language).toBe('es');
    await plain.runJobs();
    expect(await rows(res.body.id)).toHaveLength(0);
  });

  test('when the title is null, blank or only markup then the update has no title; markup in the body is removed', async () => {
    for (const title of [null, '   ', '<b></b>']) {
      const res = await post(owner, f.id, { title, body: '<p>Hello <script>alert(1)</script><b>friends</b></p>' });
      expect([res.status, res.body.title, res.body.body]).toEqual([201, null, 'Hello friends']);
    }
  });

  test('when the title is over 200 or the body over 20,000 characters then 400; at the limits then 201', async () => {
    expect((await post(owner, f.id, { title: 'x'.repeat(201), body: 'ok' })).status).toBe(400);
    expect((await post(owner, f.id, { body: 'y'.repeat(20_001) })).status).toBe(400);
    const ok = await post(owner, f.id, { title: 'x'.repeat(200), body: 'y'.repeat(20_000) });
    expect(ok.status).toBe(201);
  });

  test('when the body is missing or empty once markup is removed then 400 with details', async () => {
    for (const body of [{}, { body: '' }, { body: '<img src=x onerror=alert(1)>' }]) {
      const res = await post(owner, f.id, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(expect.objectContaining({ error: 'Validation failed', details: expect.any(Array) }));
    }
  });

  test('when someone else, a guest or an unverified owner posts then 404, 401 and 403 EMAIL_NOT_VERIFIED', async () => {
    expect((await post(alice, f.id, { body: 'hi' })).status).toBe(404);
    expect((await request(t.app).post(base(f.id)).send({ body: 'hi' })).status).toBe(401);
    const g = await createFundraiser(t.ctx.db, unverified.id);
    const res = await post(unverified, g.id, { body: 'hi' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(expect.objectContaining({ code: 'EMAIL_NOT_VERIFIED', action: 'verify_email' }));
  });

  test('when the campaign id is not a uuid then 400; unknown then 404', async () => {
    expect((await post(owner, 'nope', { body: 'hi' })).status).toBe(400);
    expect((await post(owner, randomUUID(), { body: 'hi' })).status).toBe(404);
  });
});

describe('GET /projects/:fundraiserId/updates', () => {
  let g: FundraiserRow;
  let first: string;
  let second: string;
  beforeAll(async () => {
    g = await createFundraiser(t.ctx.db, owner.id);
    first = (await post(owner, g.id, { title: 'Roof', body: EN })).body.id;
    await t.ctx.db('processor_accounts').insert({ id: `acct_${randomUUID().slice(0, 8)}`, owner_type: 'user', owner_id: owner.id });
    const acct = await t.ctx.db('processor_accounts').where({ owner_id: owner.id }).first();
    const [p] = await t.ctx.db('payouts')
      .insert({ processor_payout_id: `po_${randomUUID()}`, processor_account_id: acct.id, amount_cents: 5000, currency: 'usd', status: 'paid', arrival_date: '2026-11-20' })
      .returning('id');
    await t.ctx.db('withdrawals').insert({ payout_id: p.id, fundraiser_id: g.id, amount_cents: 5000, currency: 'usd', status: 'paid', arrival_date: '2026-11-20' });
    second = (await post(owner, g.id, { body: ES })).body.id;
    await t.runJobs();
  });

  test('when anyone reads then a bare array of updates and withdrawals newest first, liked_by_me false for guests', async () => {
    const res = await request(t.app).get(base(g.id));
    expect(res.status).toBe(200);
    expect(res.body.map((i: { type: string }) => i.type)).toEqual(['update', 'withdrawal', 'update']);
    expect(res.body[0]).toEqual(expect.objectContaining({ id: second, like_count: 0, liked_by_me: false }));
    expect(res.body[1]).toEqual({
      id: expect.any(String), fundraiser_id: g.id, type: 'withdrawal', payout_id: expect.any(String), amount_cents: 5000, currency: 'USD',
      status: 'paid', arrival_date: '2026-11-20', created_at: expect.any(String),
    });
    expect(res.body[1]).not.toHaveProperty('like_count');
    expect(res.body[2].id).toBe(first);
  });

  test('when lang is given then title and body are overlaid with that translation where one exists', async () => {
    const res = await request(t.app).get(`${base(g.id)}?lang=uk`);
    expect(res.body[2]).toEqual(expect.objectContaining({ title: '[uk] Roof', body: `[uk] ${EN}`, language: 'en' }));
    const own = await request(t.app).get(`${base(g.id)}?lang=es`);
    expect(own.body[0].body).toBe(ES); // already Spanish
    expect((await request(t.app).get(`${base(g.id)}?lang=xx`)).status).toBe(400);
  });

  test('when an update is withdrawn then it is left out', async () => {
    const extra = (await post(owner, g.id, { body: 'short lived' })).body.id;
    expect((await request(t.app).delete(`${base(g.id)}/${extra}`).set(await authHeaders(t, owner))).status).toBe(204);
    const res = await request(t.app).get(base(g.id));
    expect(res.body.map((i: { id: string }) => i.id)).not.toContain(extra);
  });

  test('when the campaign is unreadable or unknown then 200 with an empty array; a non-uuid id is 400', async () => {
    const draft = await createFundraiser(t.ctx.db, owner.id, { status: 'draft' });
    await post(owner, draft.id, { body: 'draft news' });
    expect((await request(t.app).get(base(draft.id))).body).toEqual([]);
    expect((await request(t.app).get(base(randomUUID()))).body).toEqual([]);
    const mine = await request(t.app).get(base(draft.id)).set(await authHeaders(t, owner));
    expect(mine.body).toHaveLength(1); // the owner reads their own draft's feed
    expect((await request(t.app).get(base('x'))).status).toBe(400);
  });
});

describe('PATCH and DELETE /projects/:fundraiserId/updates/:updateId', () => {
  test('when the words change then the language is detected again, machine rows are redone and hand-made ones flagged outdated; audit-logged', async () => {
    const id = (await post(owner, f.id, { title: 'Roof', body: EN })).body.id;
    await t.runJobs();
    const put = await request(t.app).put(`${base(f.id)}/${id}/translations/ru`).set(await authHeaders(t, owner)).send({ title: 'Крыша', body: RU });
    expect(put.status).toBe(200);
    const res = await patch(owner, f.id, id, { body: ES, title: 'Techo' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expect.objectContaining({ id, title: 'Techo', body: ES, language: 'es', edited_at: expect.any(String) }));
    expect((await rows(id)).map((r) => [r.lang, r.source, r.outdated])).toEqual([['ru', 'human', true]]);
    await t.runJobs();
    expect((await rows(id)).map((r) => [r.lang, r.source, r.outdated, r.body])).toEqual([
      ['en', 'machine', false, `[en] ${ES}`],
      ['ru', 'human', true, RU],
      ['uk', 'machine', false, `[uk] ${ES}`],
    ]);
    const [, edit] = await audits(id);
    expect(edit).toEqual(expect.objectContaining({ action: 'update.edited', actor_user_id: owner.id, target_type: 'project_update' }));
    expect(edit.details).toEqual(expect.objectContaining({ fields: ['title', 'body'], previous: { title: 'Roof', body: EN, language: 'en' }, language: 'es' }));
  });

  test('when title is null or blank then the title is removed; the words are otherwise kept', async () => {
    const id = (await post(owner, f.id, { title: 'T', body: EN })).body.id;
    expect((await patch(owner, f.id, id, { title: null })).body).toEqual(expect.objectContaining({ title: null, body: EN }));
    await patch(owner, f.id, id, { title: 'Back' });
    expect((await patch(owner, f.id, id, { title: '  ' })).body.title).toBeNull();
  });

  test('when nothing changes then no translation is touched, edited_at stays null, and the edit is still audit-logged', async () => {
    const id = (await post(owner, f.id, { body: EN })).body.id;
    await t.runJobs();
    const res = await patch(owner, f.id, id, { body: EN });
    expect([res.status, res.body.edited_at]).toEqual([200, null]);
    expect(await rows(id)).toHaveLength(3);
    expect((await audits(id)).map((a) => a.details.fields)).toEqual([[]]);
  });

  test('when the body has neither field, the update is withdrawn, or belongs to another campaign then 400, 404, 404', async () => {
    const id = (await post(owner, f.id, { body: 'x' })).body.id;
    expect((await patch(owner, f.id, id, {})).status).toBe(400);
    const other = await createFundraiser(t.ctx.db, owner.id);
    expect((await patch(owner, other.id, id, { body: 'y' })).status).toBe(404);
    expect((await request(t.app).delete(`${base(f.id)}/${id}`).set(await authHeaders(t, owner))).status).toBe(204);
    expect((await patch(owner, f.id, id, { body: 'y' })).status).toBe(404);
    expect((await request(t.app).delete(`${base(f.id)}/${id}`).set(await authHeaders(t, owner))).status).toBe(404);
    expect((await audits(id)).map((a) => a.action)).toEqual(['update.withdrawn']);
  });

  test('when a non-owner edits or deletes then 404; an unverified owner editing gets 403', async () => {
    const id = (await post(owner, f.id, { body: 'x' })).body.id;
    expect((await patch(alice, f.id, id, { body: 'y' })).status).toBe(404);
    expect((await request(t.app).delete(`${base(f.id)}/${id}`).set(await authHeaders(t, alice))).status).toBe(404);
    const g = await createFundraiser(t.ctx.db, unverified.id);
    const [u] = await t.ctx.db('project_updates').insert({ fundraiser_id: g.id, author_user_id: unverified.id, body: 'b' }).returning('id');
    expect((await patch(unverified, g.id, u.id, { body: 'c' })).body.code).toBe('EMAIL_NOT_VERIFIED');
  });
});

describe('PUT and DELETE /projects/:fundraiserId/updates/:updateId/like', () => {
  test('when liking and unliking twice each then the count moves once and answers { like_count, liked }; no verified email needed', async () => {
    const id = (await post(owner, f.id, { body: 'like me' })).body.id;
    const url = `${base(f.id)}/${id}/like`;
    for (const user of [alice, alice, unverified]) {
      const res = await request(t.app).put(url).set(await authHeaders(t, user));
      expect(res.status).toBe(200);
    }
    expect((await request(t.app).put(url).set(await authHeaders(t, alice))).body).toEqual({ like_count: 2, liked: true });
    const feed = await request(t.app).get(base(f.id)).set(await authHeaders(t, alice));
    expect(feed.body.find((i: { id: string }) => i.id === id)).toEqual(expect.objectContaining({ like_count: 2, liked_by_me: true }));
    expect((await request(t.app).delete(url).set(await authHeaders(t, alice))).body).toEqual({ like_count: 1, liked: false });
    expect((await request(t.app).delete(url).set(await authHeaders(t, alice))).body).toEqual({ like_count: 1, liked: false });
  });

  test('when the update is withdrawn, of another campaign, or the caller is a guest then 404, 404, 401', async () => {
    const id = (await post(owner, f.id, { body: 'gone' })).body.id;
    const other = await createFundraiser(t.ctx.db, owner.id);
    expect((await request(t.app).put(`${base(other.id)}/${id}/like`).set(await authHeaders(t, alice))).status).toBe(404);
    expect((await request(t.app).put(`${base(f.id)}/${id}/like`)).status).toBe(401);
    await request(t.app).delete(`${base(f.id)}/${id}`).set(await authHeaders(t, owner));
    expect((await request(t.app).put(`${base(f.id)}/${id}/like`).set(await authHeaders(t, alice))).status).toBe(404);
  });

  test('when an account likes more than 100 times a minute then 429 from the authenticated limiter', async () => {
    const app = createTestApp();
    const id = (await post(owner, f.id, { body: 'popular' })).body.id;
    const headers = await authHeaders(app, alice);
    let last = 0;
    for (let i = 0; i < 101; i++) last = (await request(app.app).put(`${base(f.id)}/${id}/like`).set(headers)).status;
    expect(last).toBe(429);
  });
});

describe('feature flag features.project_updates', () => {
  test('when the flag is off then posting and editing answer 403 with feature_key; reading still works', async () => {
    const id = (await post(owner, f.id, { body: 'before' })).body.id;
    await t.ctx.db('feature_flags').insert({ key: 'features.project_updates', enabled: false }).onConflict('key').merge();
    try {
      const app = createTestApp();
      const res = await post(owner, f.id, { body: 'x' }, app);
      expect([res.status, res.body.feature_key]).toEqual([403, 'features.project_updates']);
      expect((await patch(owner, f.id, id, { body: 'y' }, app)).status).toBe(403);
      expect((await request(app.app).get(base(f.id))).status).toBe(200);
    } finally {
      await t.ctx.db('feature_flags').where({ key: 'features.project_updates' }).del();
    }
  });
});
