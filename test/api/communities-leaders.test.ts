import request from 'supertest';
import { community as makeCommunity, person as makePerson } from '../helpers/communities';
import { serveForSandbox } from '../helpers/listening';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import type { TestUser } from '../helpers/auth';
import { deliver, stripeEvent } from '../helpers/stripe';

/** Community leaders (appointed by the owner) and the notifications around join requests. */

const t = createTestApp();
const db = () => testDb();
serveForSandbox(t);
afterAll(closeDb);

type H = Record<string, string>;
const api = (p: string) => `/api/v1${p}`;
const intentOf = (secret: string) => secret.split('_secret_')[0];

const person = (opts: Partial<TestUser> = {}) => makePerson(t, opts);
const community = (h: H, body: Record<string, unknown> = {}) => makeCommunity(t, h, body);

/** Joins and pays (no approval needed), through the sandbox's signed events. */
async function member(c: { id: string }) {
  const p = await person();
  const j = await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(p.h).send({ interval: 'month' });
  expect(j.status).toBe(201);
  const pay = await request(t.app).post(`/sandbox/payment-intents/${intentOf(j.body.data.client_secret)}/confirm`).send({ outcome: 'succeeded' });
  expect(pay.body.data.webhook_delivered).toBe(true);
  return { ...p, join_id: j.body.data.join_id as string };
}

/** A join request whose card is saved (pending a leader's decision). */
async function savedRequest(c: { id: string }) {
  const p = await person();
  const j = await request(t.app).post(api(`/communities/${c.id}/join/paid`)).set(p.h).send({ interval: 'month' });
  expect(j.body.data.intent_type).toBe('setup');
  const ok = await request(t.app).post(`/sandbox/setup-intents/${intentOf(j.body.data.client_secret)}/confirm`).send({ outcome: 'succeeded' });
  expect(ok.body.data.webhook_delivered).toBe(true);
  return { ...p, join_id: j.body.data.join_id as string };
}

const notes = (userId: string, type: string) => db()('notifications').where({ user_id: userId, type }).select('*');

describe('leaders', () => {
  test('when the owner appoints a member, then the leader decides on requests; removed, they no longer can', async () => {
    const owner = await person();
    const c = await community(owner.h);
    const m = await member(c);
    const url = api(`/communities/${c.id}/leaders/${m.u.id}`);
    expect((await request(t.app).get(api(`/communities/${c.id}/join-requests`)).set(m.h)).status).toBe(403);

    const put = await request(t.app).put(url).set(owner.h);
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ community_id: c.id, user_id: m.u.id, role: 'leader', status: 'active' });
    expect((await request(t.app).put(url).set(owner.h)).body.data.role).toBe('leader');
    expect((await request(t.app).get(api(`/communities/${c.slug}`)).set(m.h)).body.data.membership).toEqual({ role: 'leader', status: 'active' });
    expect((await request(t.app).get(api(`/communities/${c.id}/join-requests`)).set(m.h)).status).toBe(200);
    // A leader cannot appoint others: the owner alone chooses.
    const other = await member(c);
    const byLeader = await request(t.app).put(api(`/communities/${c.id}/leaders/${other.u.id}`)).set(m.h);
    expect(byLeader.status).toBe(403);
    expect(byLeader.body.code).toBe('COMMUNITY_OWNER_ONLY');

    const del = await request(t.app).delete(url).set(owner.h);
    expect(del.status).toBe(200);
    expect(del.body.data.role).toBe('member');
    expect((await request(t.app).delete(url).set(owner.h)).body.data.role).toBe('member');
    expect((await request(t.app).get(api(`/communities/${c.id}/join-requests`)).set(m.h)).status).toBe(403);
  });

  test('when the target is not a member, the owner, or the ids are bad, then 404, 409 and 400 answer', async () => {
    const owner = await person();
    const c = await community(owner.h);
    const stranger = await person();
    const notMember = await request(t.app).put(api(`/communities/${c.id}/leaders/${stranger.u.id}`)).set(owner.h);
    expect(notMember.status).toBe(404);
    expect(notMember.body).toMatchObject({ error: 'Not found', code: 'MEMBER_NOT_FOUND' });
    expect((await request(t.app).delete(api(`/communities/${c.id}/leaders/${stranger.u.id}`)).set(owner.h)).status).toBe(404);
    const self = await request(t.app).put(api(`/communities/${c.id}/leaders/${owner.u.id}`)).set(owner.h);
    expect(self.status).toBe(409);
    expect(self.body.code).toBe('OWNER_ROLE_FIXED');
    expect((await request(t.app).put(api(`/communities/${c.id}/leaders/not-a-uuid`)).set(owner.h)).status).toBe(400);
    expect((await request(t.app).put(api(`/communities/no-such-community/leaders/${stranger.u.id}`)).set(owner.h)).status).toBe(404);
    expect((await request(t.app).put(api(`/communities/${c.id}/leaders/${stranger.u.id}`))).status).toBe(401);
  });

  test("when a leader's subscription is deleted, then the leadership ends with the membership", async () => {
    const owner = await person();
    const c = await community(owner.h);
    const m = await member(c);
    await request(t.app).put(api(`/communities/${c.id}/leaders/${m.u.id}`)).set(owner.h).expect(200);
    const row = await db()('community_joins').where({ id: m.join_id }).first();
    const sub = { id: row.processor_subscription_id, object: 'subscription', status: 'canceled', metadata: { kind: 'community_join', join_id: m.join_id } };
    expect((await deliver(t, stripeEvent('customer.subscription.deleted', sub))).status).toBe(200);
    expect(await db()('community_members').where({ community_id: c.id, user_id: m.u.id }).first()).toMatchObject({ status: 'canceled', role: 'member' });
    expect((await request(t.app).get(api(`/communities/${c.id}/join-requests`)).set(m.h)).status).toBe(403);
    // Lapsed, they cannot be appointed until they pay again.
    expect((await request(t.app).put(api(`/communities/${c.id}/leaders/${m.u.id}`)).set(owner.h)).body.code).toBe('MEMBER_NOT_FOUND');
  });
});

describe('join request notifications', () => {
  test('when a card is saved, then the owner and each leader are notified once; the requester hears of approval', async () => {
    const owner = await person();
    const c = await community(owner.h, { requires_approval: true, name: 'Tea & Cake' });
    const leader = await person();
    // A leader appointed directly (paying members need no approval in this setup).
    await db()('community_members').insert({ community_id: c.id, user_id: leader.u.id, role: 'member', status: 'active' });
    await request(t.app).put(api(`/communities/${c.id}/leaders/${leader.u.id}`)).set(owner.h).expect(200);
    await db()('users').where({ id: leader.u.id }).update({ locale: 'es' });

    const r = await savedRequest(c);
    await t.runJobs();
    const [toOwner] = await notes(owner.u.id, 'community_join_requested');
    expect(toOwner).toMatchObject({ category: 'community', title: 'New request to join', metadata: { community_id: c.id, join_id: r.join_id, requester_user_id: r.u.id } });
    expect(toOwner.message).toContain('>Tea &amp; Cake</a>');
    expect(toOwner.action_url).toMatch(new RegExp(`/communities/${c.slug}/join-requests$`));
    expect(await notes(leader.u.id, 'community_join_requested')).toEqual([expect.objectContaining({ title: 'Nueva solicitud para unirse' })]);
    expect(await notes(r.u.id, 'community_join_requested')).toHaveLength(0);

    // A redelivered setup event changes nothing.
    const si = await db()('sandbox_objects').where({ kind: 'setup_intent' }).whereRaw("data->'metadata'->>'join_id' = ?", [r.join_id]).first();
    expect((await deliver(t, stripeEvent('setup_intent.succeeded', si.data))).status).toBe(200);
    await t.runJobs();
    expect(await notes(owner.u.id, 'community_join_requested')).toHaveLength(1);

    const ok = await request(t.app).post(api(`/communities/${c.id}/join-requests/${r.join_id}/approve`)).set(leader.h);
    expect(ok.status).toBe(200);
    await t.runJobs();
    expect(await notes(r.u.id, 'community_join_approved')).toEqual([expect.objectContaining({ title: 'Request approved', metadata: { community_id: c.id, join_id: r.join_id, decision: 'approved' } })]);
    expect(await notes(r.u.id, 'community_join_declined')).toHaveLength(0);
  });

  test('when a leader declines, then the requester is told nothing was charged', async () => {
    const owner = await person();
    const c = await community(owner.h, { is_private: true });
    const r = await savedRequest(c);
    await db()('users').where({ id: r.u.id }).update({ locale: 'ru' });
    expect((await request(t.app).post(api(`/communities/${c.id}/join-requests/${r.join_id}/decline`)).set(owner.h)).status).toBe(200);
    await t.runJobs();
    const [n] = await notes(r.u.id, 'community_join_declined');
    expect(n).toMatchObject({ title: 'Заявка отклонена', metadata: { decision: 'declined' } });
    expect(await notes(r.u.id, 'community_join_approved')).toHaveLength(0);
  });
});
