import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const db = () => testDb();

async function scene() {
  const owner = await createUser(db(), { name: 'Olga' });
  const fan = await createUser(db(), { name: 'Fan <b>One</b>' });
  const f = await createFundraiser(db(), owner.id);
  return { owner, fan, f, ownerH: await authHeaders(t, owner), fanH: await authHeaders(t, fan) };
}

describe('POST/DELETE /fundraisers/{id}/endorse', () => {
  it('when a user endorses a public campaign, then 201 with the endorsement and the holder is notified once', async () => {
    const s = await scene();
    const r = await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorse`).set(s.fanH).send({ message: 'Great <i>cause</i>' }).expect(201);
    expect(r.body.data).toEqual(expect.objectContaining({ fundraiser_id: s.f.id, message: 'Great cause', endorser: expect.objectContaining({ id: s.fan.id }) }));
    expect(r.headers['ratelimit-limit']).toBe('100');
    const again = await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorse`).set(s.fanH).send({}).expect(200);
    expect(again.body.data.message).toBe('Great cause');
    await request(t.app).delete(`/api/v1/fundraisers/${s.f.id}/endorse`).set(s.fanH).expect(204);
    await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorse`).set(s.fanH).send({}).expect(201);
    await t.runJobs();
    const n = await db()('notifications').where({ user_id: s.owner.id, type: 'endorsement_received' });
    expect(n).toHaveLength(1);
    expect(n[0].message).toContain('Fan &lt;b&gt;One&lt;/b&gt;');
  });

  it('when withdrawn, then the endorsement is gone and a second withdraw is still 204', async () => {
    const s = await scene();
    await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorse`).set(s.fanH).send({}).expect(201);
    await request(t.app).delete(`/api/v1/fundraisers/${s.f.id}/endorse`).set(s.fanH).expect(204);
    await request(t.app).delete(`/api/v1/fundraisers/${s.f.id}/endorse`).set(s.fanH).expect(204);
    expect(await db()('endorsements').where({ fundraiser_id: s.f.id })).toHaveLength(0);
  });

  it('when the owner endorses their own campaign, then 403; a draft is 404 to others; unlisted is 400; bad ids 400; guests 401', async () => {
    const s = await scene();
    expect((await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorse`).set(s.ownerH).send({}).expect(403)).body.code).toBe('SELF_ENDORSEMENT');
    const draft = await createFundraiser(db(), s.owner.id, { status: 'draft' });
    await request(t.app).post(`/api/v1/fundraisers/${draft.id}/endorse`).set(s.fanH).send({}).expect(404);
    const unlisted = await createFundraiser(db(), s.owner.id, { visibility: 'unlisted' });
    expect((await request(t.app).post(`/api/v1/fundraisers/${unlisted.id}/endorse`).set(s.fanH).send({}).expect(400)).body.code).toBe('FUNDRAISER_NOT_PUBLIC');
    await request(t.app).post('/api/v1/fundraisers/not-a-uuid/endorse').set(s.fanH).send({}).expect(400);
    await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorse`).send({}).expect(401);
    await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorse`).set(s.fanH).send({ message: 'x'.repeat(501) }).expect(400);
  });
});

describe('POST /fundraisers/{id}/endorsement-requests', () => {
  it('when the owner asks an address, then 201 and a mail with the campaign link is queued in the request language', async () => {
    const s = await scene();
    const r = await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorsement-requests?lang=es`).set(s.ownerH).send({ email: 'friend@example.test' }).expect(201);
    expect(r.body.data).toEqual(expect.objectContaining({ fundraiser_id: s.f.id, email: 'friend@example.test' }));
    const mail = await db()('mail_outbox').where({ to: 'friend@example.test' }).first();
    expect(mail.locale).toBe('es');
    expect(mail.text).toContain(`http://site.test/fundraisers/${s.f.slug}`);
  });

  it('when someone else asks, then 404; a bad address 400; past the daily cap 429 with Retry-After', async () => {
    const s = await scene();
    await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorsement-requests`).set(s.fanH).send({ email: 'x@example.test' }).expect(404);
    await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorsement-requests`).set(s.ownerH).send({ email: 'nope' }).expect(400);
    await db()('endorsement_requests').insert(Array.from({ length: 20 }, () => ({ fundraiser_id: s.f.id, requested_by: s.owner.id, email: 'a@example.test' })));
    const r = await request(t.app).post(`/api/v1/fundraisers/${s.f.id}/endorsement-requests`).set(s.ownerH).send({ email: 'y@example.test' }).expect(429);
    expect(r.headers['retry-after']).toBe('86400');
    expect(await db()('mail_outbox').where({ to: 'y@example.test' })).toHaveLength(0);
  });
});
