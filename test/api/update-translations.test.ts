import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { makeDue } from '../../src/jobs/admin';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { startTranslateServer } from '../helpers/translate-server';

let tr: Awaited<ReturnType<typeof startTranslateServer>>;
let t: TestApp;
let plain: TestApp;
let owner: TestUser;
let alice: TestUser;
let f: FundraiserRow;

const EN = 'We bought the roofing materials and started the work last week, thank you all for your support!';

beforeAll(async () => {
  tr = await startTranslateServer();
  t = createTestApp({ env: { TRANSLATE_URL: tr.url } });
  plain = createTestApp();
  owner = await createUser(t.ctx.db);
  alice = await createUser(t.ctx.db);
  f = await createFundraiser(t.ctx.db, owner.id);
});
afterAll(async () => {
  await tr.close();
  await closeDb();
});

const p = (fid: string) => `/api/v1/projects/${fid}`;
async function postUpdate(body: Record<string, unknown>, fid = f.id) {
  const res = await request(t.app).post(`${p(fid)}/updates`).set(await authHeaders(t, owner)).send(body);
  expect(res.status).toBe(201);
  return res.body.id as string;
}
async function save(id: string, lang: string, body: Record<string, unknown>, user = owner) {
  return request(t.app).put(`${p(f.id)}/updates/${id}/translations/${lang}`).set(await authHeaders(t, user)).send(body);
}
async function regenerate(id: string, lang: string, query = '', app = t) {
  return request(app.app).post(`${p(f.id)}/updates/${id}/translations/${lang}/regenerate${query}`).set(await authHeaders(app, owner));
}
const auditActions = async (id: string) => (await t.ctx.db('audit_log').where({ target_id: id }).orderBy('created_at')).map((a) => [a.action, a.details.lang]);

describe('translations tab', () => {
  test('when the owner lists then every live update newest first with its text, language and translation rows', async () => {
    const g = await createFundraiser(t.ctx.db, owner.id);
    const a = await postUpdate({ title: 'Roof', body: EN }, g.id);
    const b = await postUpdate({ body: 'Мы начали работы, спасибо за поддержку!' }, g.id);
    const gone = await postUpdate({ body: 'withdrawn' }, g.id);
    await request(t.app).delete(`${p(g.id)}/updates/${gone}`).set(await authHeaders(t, owner));
    await t.runJobs();
    const res = await request(t.app).get(`${p(g.id)}/translations`).set(await authHeaders(t, owner));
    expect(res.status).toBe(200);
    expect(res.body.data.map((u: { update_id: string }) => u.update_id)).toEqual([b, a]);
    expect(res.body.data[1]).toEqual({
      update_id: a, title: 'Roof', body: EN, language: 'en', created_at: expect.any(String),
      translations: ['es', 'ru', 'uk'].map((lang) => ({
        lang, title: `[${lang}] Roof`, body: `[${lang}] ${EN}`, source: 'machine', outdated: false, updated_at: expect.any(String),
      })),
    });
    expect(res.body.data[0].translations.map((r: { lang: string; title: null }) => [r.lang, r.title])).toEqual([['en', null], ['es', null], ['uk', null]]);
  });

  test('when someone else asks for any tab route then 404', async () => {
    const id = await postUpdate({ body: EN });
    const h = await authHeaders(t, alice);
    expect((await request(t.app).get(`${p(f.id)}/translations`).set(h)).status).toBe(404);
    expect((await request(t.app).get(`${p(f.id)}/updates/${id}/translations`).set(h)).status).toBe(404);
    expect((await save(id, 'ru', { body: 'x' }, alice)).status).toBe(404);
    expect((await request(t.app).post(`${p(f.id)}/updates/${id}/translations/ru/regenerate`).set(h)).status).toBe(404);
    expect((await request(t.app).get(`${p(f.id)}/translations`)).status).toBe(401);
  });

  test('when one update is read then { data: { update_id, language, translations } }; withdrawn or another campaign\'s is 404', async () => {
    const id = await postUpdate({ body: EN });
    const res = await request(t.app).get(`${p(f.id)}/updates/${id}/translations`).set(await authHeaders(t, owner));
    expect(res.body).toEqual({ data: { update_id: id, language: 'en', translations: [] } });
    const other = await createFundraiser(t.ctx.db, owner.id);
    expect((await request(t.app).get(`${p(other.id)}/updates/${id}/translations`).set(await authHeaders(t, owner))).status).toBe(404);
    await request(t.app).delete(`${p(f.id)}/updates/${id}`).set(await authHeaders(t, owner));
    expect((await request(t.app).get(`${p(f.id)}/updates/${id}/translations`).set(await authHeaders(t, owner))).status).toBe(404);
    expect((await save(id, 'ru', { body: 'x' })).status).toBe(404);
  });

  test('when a hand-edited translation is saved then the row is human, overwrites a machine one, and the save is audit-logged', async () => {
    const id = await postUpdate({ title: 'Roof', body: EN });
    await t.runJobs();
    const res = await save(id, 'ru', { title: 'Крыша', body: '<b>Мы</b> купили материалы' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { lang: 'ru', title: 'Крыша', body: 'Мы купили материалы', source: 'human', outdated: false, updated_at: expect.any(String) } });
    expect(await auditActions(id)).toEqual([['translation.saved', 'ru']]);
    const feed = await request(t.app).get(`${p(f.id)}/updates?lang=ru`);
    expect(feed.body.find((u: { id: string }) => u.id === id)).toEqual(expect.objectContaining({ title: 'Крыша', body: 'Мы купили материалы' }));
  });

  test('when saved in the update\'s own language, without a title when the update has one, or with a bad lang then 400', async () => {
    const id = await postUpdate({ title: 'Roof', body: EN });
    const own = await save(id, 'en', { title: 'R', body: 'x' });
    expect([own.status, own.body.error]).toEqual([400, 'Validation failed']);
    expect((await save(id, 'es', { body: 'sin título' })).status).toBe(400);
    expect((await save(id, 'es', { title: '  ', body: 'sin título' })).status).toBe(400);
    expect((await save(id, 'de', { title: 'D', body: 'x' })).status).toBe(400);
    const untitled = await postUpdate({ body: EN });
    expect((await save(untitled, 'es', { body: 'ok' })).body.data.title).toBeNull();
    expect(await auditActions(id)).toEqual([]);
  });

  test('when regenerating then a machine row is stored; a human row is replaced only with force 1 or true; each is audit-logged', async () => {
    const id = await postUpdate({ title: 'Roof', body: EN });
    const first = await regenerate(id, 'uk');
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual(expect.objectContaining({ lang: 'uk', title: '[uk] Roof', body: `[uk] ${EN}`, source: 'machine' }));
    await save(id, 'uk', { title: 'Дах', body: 'ручний переклад' });
    const kept = await regenerate(id, 'uk');
    expect([kept.status, kept.body.code]).toEqual([409, 'HUMAN_TRANSLATION']);
    expect((await regenerate(id, 'uk', '?force=0')).status).toBe(409);
    expect((await t.ctx.db('update_translations').where({ update_id: id, lang: 'uk' }).first()).source).toBe('human');
    for (const q of ['?force=1', '?force=true']) {
      await save(id, 'uk', { title: 'Дах', body: 'ручний переклад' });
      const forced = await regenerate(id, 'uk', q);
      expect([forced.status, forced.body.data.source]).toEqual([200, 'machine']);
    }
    expect((await regenerate(id, 'en')).status).toBe(400);
    expect(await auditActions(id)).toEqual([
      ['translation.regenerated', 'uk'], ['translation.saved', 'uk'], ['translation.saved', 'uk'], ['translation.regenerated', 'uk'],
      ['translation.saved', 'uk'], ['translation.regenerated', 'uk'],
    ]);
  });

  test('when TRANSLATE_URL is unset or the service fails then regenerate answers 503 Translation service unavailable', async () => {
    const id = await postUpdate({ body: EN });
    const res = await regenerate(id, 'es', '', plain);
    expect([res.status, res.body.error]).toEqual([503, 'Translation service unavailable']);
    tr.state.failing = true;
    try {
      const down = await regenerate(id, 'es');
      expect([down.status, down.body.error]).toEqual([503, 'Translation service unavailable']);
    } finally {
      tr.state.failing = false;
    }
    expect(await t.ctx.db('update_translations').where({ update_id: id, lang: 'es' }).first()).toBeUndefined();
  });

  test('when the service fails during the background job then the job fails and a later run fills the rows', async () => {
    const id = await postUpdate({ body: EN });
    tr.state.failing = true;
    await t.runJobs();
    tr.state.failing = false;
    expect(await t.ctx.db('update_translations').where({ update_id: id })).toHaveLength(0);
    await makeDue(t.ctx.db, 'update-translations');
    await t.runJobs();
    expect(await t.ctx.db('update_translations').where({ update_id: id })).toHaveLength(3);
  });

  test('when a non-uuid update id is given then 400', async () => {
    expect((await request(t.app).get(`${p(f.id)}/updates/nope/translations`).set(await authHeaders(t, owner))).status).toBe(400);
    expect((await request(t.app).get(`${p(randomUUID())}/translations`).set(await authHeaders(t, owner))).status).toBe(404);
  });
});
