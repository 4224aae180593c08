import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';
import { startTranslateServer } from '../helpers/translate-server';

let tr: Awaited<ReturnType<typeof startTranslateServer>>;
let t: TestApp;
let owner: TestUser;
let alice: TestUser;
let f: FundraiserRow;

beforeAll(async () => {
  tr = await startTranslateServer();
  t = createTestApp({ env: { TRANSLATE_URL: tr.url } });
  owner = await createUser(t.ctx.db);
  alice = await createUser(t.ctx.db);
  f = await createFundraiser(t.ctx.db, owner.id, { is_project: true });
});
afterAll(async () => {
  await tr.close();
  await closeDb();
});

const url = (fid: string) => `/api/v1/projects/${fid}/milestones`;
async function add(body: Record<string, unknown>, fid = f.id, user = owner) {
  return request(t.app).post(url(fid)).set(await authHeaders(t, user)).send(body);
}

describe('milestones', () => {
  test('when the owner adds one then 201 with the bare row', async () => {
    const res = await add({ title: 'Buy <b>materials</b>', description: 'Roof and walls', due_date: '2027-03-01', amount_cents: 250_000 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String), fundraiser_id: f.id, title: 'Buy materials', description: 'Roof and walls', due_date: '2027-03-01',
      amount_cents: 250_000, status: 'planned', completed_at: null, created_at: expect.any(String),
    });
  });

  test('when read then both shapes list the rows by due date (undated last), then creation', async () => {
    const g = await createFundraiser(t.ctx.db, owner.id, { is_project: true });
    const undated = (await add({ title: 'Undated' }, g.id)).body.id;
    const late = (await add({ title: 'Late', due_date: '2027-06-01' }, g.id)).body.id;
    const early1 = (await add({ title: 'Early one', due_date: '2027-01-01' }, g.id)).body.id;
    const early2 = (await add({ title: 'Early two', due_date: '2027-01-01' }, g.id)).body.id;
    const bare = await request(t.app).get(url(g.id));
    expect(bare.status).toBe(200);
    expect(bare.body.map((m: { id: string }) => m.id)).toEqual([early1, early2, late, undated]);
    const wrapped = await request(t.app).get(`/api/v1/fundraisers/${g.id}/milestones`);
    expect(wrapped.body).toEqual({ milestones: bare.body });
  });

  test('when lang is given then title and description are overlaid with the machine translation made by the job', async () => {
    const g = await createFundraiser(t.ctx.db, owner.id, { is_project: true });
    await add({ title: 'Buy the roofing materials', description: 'We will buy everything the roof needs' }, g.id);
    await t.runJobs();
    const res = await request(t.app).get(`${url(g.id)}?lang=es`);
    expect(res.body[0]).toEqual(expect.objectContaining({ title: '[es] Buy the roofing materials', description: '[es] We will buy everything the roof needs' }));
    expect((await request(t.app).get(`${url(g.id)}?lang=en`)).body[0].title).toBe('Buy the roofing materials');
  });

  test('when edited then fields change, done sets completed_at and leaving done clears it, reworded text is translated again', async () => {
    const id = (await add({ title: 'Pour the foundation' })).body.id;
    await t.runJobs();
    const m = `${url(f.id)}/${id}`;
    const h = await authHeaders(t, owner);
    const done = await request(t.app).patch(m).set(h).send({ status: 'done', amount_cents: null });
    expect(done.body).toEqual(expect.objectContaining({ status: 'done', completed_at: expect.any(String), amount_cents: null }));
    expect((await request(t.app).patch(m).set(h).send({ status: 'in_progress' })).body.completed_at).toBeNull();
    await request(t.app).patch(m).set(h).send({ title: 'Pour the concrete foundation' });
    expect(await t.ctx.db('milestone_translations').where({ milestone_id: id })).toHaveLength(0);
    await t.runJobs();
    const ru = await request(t.app).get(`${url(f.id)}?lang=ru`);
    expect(ru.body.find((x: { id: string }) => x.id === id).title).toBe('[ru] Pour the concrete foundation');
    expect((await request(t.app).patch(m).set(h).send({})).status).toBe(400);
  });

  test('when deleted then 204 and it is gone; a second delete is 404', async () => {
    const id = (await add({ title: 'Temporary' })).body.id;
    const h = await authHeaders(t, owner);
    expect((await request(t.app).delete(`${url(f.id)}/${id}`).set(h)).status).toBe(204);
    expect((await request(t.app).delete(`${url(f.id)}/${id}`).set(h)).status).toBe(404);
    expect((await request(t.app).get(url(f.id))).body.map((x: { id: string }) => x.id)).not.toContain(id);
  });

  test('when someone else writes, the milestone is of another campaign, or the campaign is not a project then 404, 404, 400', async () => {
    expect((await add({ title: 'x' }, f.id, alice)).status).toBe(404);
    const id = (await add({ title: 'Mine' })).body.id;
    const other = await createFundraiser(t.ctx.db, owner.id, { is_project: true });
    expect((await request(t.app).patch(`${url(other.id)}/${id}`).set(await authHeaders(t, owner)).send({ title: 'y' })).status).toBe(404);
    const personal = await createFundraiser(t.ctx.db, owner.id);
    const res = await add({ title: 'x' }, personal.id);
    expect([res.status, res.body.code]).toEqual([400, 'NOT_A_PROJECT']);
    expect((await request(t.app).post(url(f.id)).send({ title: 'x' })).status).toBe(401);
  });

  test('when input is out of bounds then 400: empty or long title, bad date, negative or huge amount, unknown status', async () => {
    for (const body of [
      { title: '' }, { title: 'x'.repeat(201) }, { title: '<i></i>' }, { title: 'x', due_date: '2027-13-01' }, { title: 'x', due_date: '0000-01-01' },
      { title: 'x', amount_cents: -1 }, { title: 'x', amount_cents: 2 ** 60 }, { title: 'x', status: 'late' },
    ]) expect([body, (await add(body)).status]).toEqual([body, 400]);
  });

  test('when the campaign is unreadable or unknown then 404; a non-uuid is 400', async () => {
    const draft = await createFundraiser(t.ctx.db, owner.id, { is_project: true, status: 'draft' });
    expect((await request(t.app).get(url(draft.id))).status).toBe(404);
    expect((await request(t.app).get(url(draft.id)).set(await authHeaders(t, owner))).status).toBe(200);
    expect((await request(t.app).get(url(randomUUID()))).status).toBe(404);
    expect((await request(t.app).get('/api/v1/fundraisers/nope/milestones')).status).toBe(400);
  });
});

describe('GET /projects/{fundraiserId}/funding-stats', () => {
  /** A payout of the holder's connected account with this campaign's share of it (a withdrawal). */
  async function withdrawal(fid: string, amount: number, status: 'pending' | 'in_transit' | 'paid' | 'failed') {
    const acct = `acct_${owner.id.slice(0, 12)}`;
    await t.ctx.db('processor_accounts').insert({ id: acct, owner_type: 'user', owner_id: owner.id }).onConflict().ignore();
    const [p] = await t.ctx.db('payouts')
      .insert({ processor_payout_id: `po_${randomUUID()}`, processor_account_id: acct, amount_cents: amount, currency: 'usd', status })
      .returning('id');
    await t.ctx.db('withdrawals').insert({ payout_id: p.id, fundraiser_id: fid, amount_cents: amount, currency: 'usd', status });
  }

  test('when a project is read, then 200 with its allocation, disbursement and milestone counts (guest or owner)', async () => {
    const g = await createFundraiser(t.ctx.db, owner.id, { is_project: true, raised_cents: 500_000, currency: 'usd' });
    await add({ title: 'Materials', amount_cents: 200_000 }, g.id);
    await add({ title: 'Labour', amount_cents: 150_000, status: 'in_progress' }, g.id);
    await add({ title: 'Opening', status: 'done' }, g.id);
    await withdrawal(g.id, 120_000, 'paid');
    await withdrawal(g.id, 30_000, 'in_transit');
    await withdrawal(g.id, 9_999, 'failed');
    const res = await request(t.app).get(`/api/v1/projects/${g.id}/funding-stats`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        fundraiser_id: g.id, is_project: true, currency: 'USD', raised_cents: 500_000,
        allocated_cents: 350_000, unallocated_cents: 150_000,
        disbursed_cents: 120_000, pending_disbursement_cents: 30_000, disbursement_count: 1,
        milestones: { total: 3, planned: 1, in_progress: 1, done: 1 },
      },
    });
    expect((await request(t.app).get(`/api/v1/projects/${g.id}/funding-stats`).set(await authHeaders(t, owner))).status).toBe(200);
  });

  test('when the campaign is not a project, then 200 with zeros; unreadable or unknown 404; a non-uuid 400', async () => {
    const plain = await createFundraiser(t.ctx.db, owner.id, { is_project: false, raised_cents: 10_000 });
    const res = await request(t.app).get(`/api/v1/projects/${plain.id}/funding-stats`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      fundraiser_id: plain.id, is_project: false, raised_cents: 0, allocated_cents: 0, unallocated_cents: 0, disbursed_cents: 0,
      pending_disbursement_cents: 0, disbursement_count: 0, milestones: { total: 0, planned: 0, in_progress: 0, done: 0 },
    });
    const priv = await createFundraiser(t.ctx.db, owner.id, { is_project: true, visibility: 'private' });
    expect((await request(t.app).get(`/api/v1/projects/${priv.id}/funding-stats`)).status).toBe(404);
    expect((await request(t.app).get(`/api/v1/projects/${randomUUID()}/funding-stats`)).status).toBe(404);
    expect((await request(t.app).get('/api/v1/projects/nope/funding-stats')).status).toBe(400);
  });
});
