import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { OutgoingMail } from '../../src/integrations/mail';
import { notify, type NotificationType } from '../../src/modules/notifications';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';

afterAll(closeDb);
afterEach(() => jest.restoreAllMocks());

let t: TestApp;
beforeAll(() => {
  t = createTestApp();
});

const API = '/api/v1';
const prefs = async (u: TestUser, id = 'me') => request(t.app).get(`${API}/users/${id}/preferences`).set(await authHeaders(t, u));

async function notifyUser(u: TestUser, type: NotificationType = 'donation_received') {
  await t.ctx.db.transaction((trx) =>
    notify(trx, {
      user_id: u.id,
      type,
      category: 'test',
      title: 'Something <happened>',
      message: 'Read <a href="http://site.test/x">this &amp; that</a>.',
      action_url: 'http://site.test/x',
      action_label: 'Open',
      dedupe_key: `test:${randomUUID()}`,
    }),
  );
  await t.runJobs();
  await t.runJobs();
}

const mailsTo = (u: TestUser) => t.ctx.db('mail_outbox').where({ to: u.email }).orderBy('created_at', 'desc');
const tokenOf = (headers: Record<string, string>) => decodeURIComponent(/token=([^>]+)>/.exec(headers['List-Unsubscribe']!)![1]!);

describe('GET/PATCH /users/{id}/preferences', () => {
  it('when nothing was set, then every type is on; own id works like me; another id 404; not a uuid 400', async () => {
    const me = await createUser(t.ctx.db);
    const r = await prefs(me);
    expect(r.status).toBe(200);
    expect(r.body.data.email).toMatchObject({ donation_received: true, campaign_update: true, new_follower: true, payout_paid: true });
    expect(Object.values(r.body.data.email).every((v) => v === true)).toBe(true);
    expect((await prefs(me, me.id)).body).toEqual(r.body);
    expect((await prefs(me, (await createUser(t.ctx.db)).id)).status).toBe(404);
    expect((await prefs(me, 'someone')).status).toBe(400);
  });

  it('when PATCH sends some types, then only those change; unknown types are ignored; a non-boolean is 400', async () => {
    const me = await createUser(t.ctx.db);
    const h = await authHeaders(t, me);
    const r = await request(t.app).patch(`${API}/users/me/preferences`).set(h).send({ email: { campaign_update: false, bogus: false } });
    expect(r.status).toBe(200);
    expect(r.body.data.email.campaign_update).toBe(false);
    expect(r.body.data.email.donation_received).toBe(true);
    expect(r.body.data.email.bogus).toBeUndefined();
    await request(t.app).patch(`${API}/users/${me.id}/preferences`).set(h).send({ email: { new_follower: false } });
    expect((await prefs(me)).body.data.email).toMatchObject({ campaign_update: false, new_follower: false, donation_received: true });
    expect((await request(t.app).patch(`${API}/users/me/preferences`).set(h).send({ email: { new_follower: 'no' } })).status).toBe(400);
  });
});

describe('notification mail', () => {
  it('when a notification is created and its toggle is on, then one mail goes out in the recipient\'s locale with an unsubscribe link and List-Unsubscribe', async () => {
    const me = await createUser(t.ctx.db);
    await t.ctx.db('users').where({ id: me.id }).update({ locale: 'uk' });
    const sent: OutgoingMail[] = [];
    jest.spyOn(t.ctx.mailer, 'send').mockImplementation(async (m) => void sent.push(m));
    await notifyUser(me);
    const mails = await mailsTo(me);
    expect(mails).toHaveLength(1);
    const m = mails[0];
    expect(m.template).toBe('notification:donation_received');
    expect(m.locale).toBe('uk');
    expect(m.subject).toBe('Something <happened>');
    expect(m.text).toContain('Read this & that.');
    expect(m.text).toContain('Відписатися від цих листів: http://site.test/unsubscribe?token=');
    expect(m.html).toContain('href="http://site.test/unsubscribe?token=');
    expect(m.html).not.toContain('<happened>');
    expect(m.headers['List-Unsubscribe']).toMatch(/^<http:\/\/site\.test\/unsubscribe\?token=.+>$/);
    const out = sent.find((s) => s.to === me.email)!;
    expect(out.headers).toEqual(m.headers);
  });

  it('when the toggle for the type is off, then the notification is written and no mail goes out', async () => {
    const me = await createUser(t.ctx.db);
    await request(t.app).patch(`${API}/users/me/preferences`).set(await authHeaders(t, me)).send({ email: { payout_paid: false } });
    await notifyUser(me, 'payout_paid');
    expect(await t.ctx.db('notifications').where({ user_id: me.id })).toHaveLength(1);
    expect(await mailsTo(me)).toHaveLength(0);
  });

  it('when the recipient has not verified their address, then no mail', async () => {
    const me = await createUser(t.ctx.db, { email_verified: false });
    await notifyUser(me);
    expect(await mailsTo(me)).toHaveLength(0);
  });
});

describe('unsubscribe', () => {
  it('when the mail\'s token is previewed, used and undone, then the category toggles off and on', async () => {
    const me = await createUser(t.ctx.db, { email: `ada-${randomUUID().slice(0, 6)}@example.test` });
    await notifyUser(me, 'campaign_update');
    const token = tokenOf((await mailsTo(me))[0].headers);
    const pv = await request(t.app).get(`${API}/unsubscribe/preview`).query({ token });
    expect(pv.status).toBe(200);
    expect(pv.body).toEqual({ data: { email_hint: 'a***@example.test', category: 'campaign_update', subscribed: true } });
    expect(pv.headers['ratelimit-limit']).toBe('300');
    const un = await request(t.app).post(`${API}/unsubscribe`).send({ token });
    expect(un.status).toBe(200);
    expect(un.body.data.subscribed).toBe(false);
    expect(un.headers['ratelimit-limit']).toBe('10');
    expect((await prefs(me)).body.data.email).toMatchObject({ campaign_update: false, donation_received: true });
    await notifyUser(me, 'campaign_update');
    expect(await mailsTo(me)).toHaveLength(1);
    const re = await request(t.app).post(`${API}/unsubscribe/resubscribe`).send({ token });
    expect(re.body.data.subscribed).toBe(true);
    expect((await prefs(me)).body.data.email.campaign_update).toBe(true);
  });

  it('when the token is forged or tampered with, then 400 Invalid unsubscribe token on every operation', async () => {
    const me = await createUser(t.ctx.db);
    await notifyUser(me);
    const token = tokenOf((await mailsTo(me))[0].headers);
    const [body, mac] = token.split('.');
    const other = (await createUser(t.ctx.db)).id;
    const tampered = `${Buffer.from(JSON.stringify({ u: other, c: 'all' })).toString('base64url')}.${mac}`;
    for (const bad of ['nope', tampered, `${body}.AAAA`]) {
      const p = await request(t.app).get(`${API}/unsubscribe/preview`).query({ token: bad });
      expect(p.status).toBe(400);
      expect(p.body.error).toBe('Invalid unsubscribe token');
      expect((await request(t.app).post(`${API}/unsubscribe`).send({ token: bad })).body.error).toBe('Invalid unsubscribe token');
      expect((await request(t.app).post(`${API}/unsubscribe/resubscribe`).send({ token: bad })).status).toBe(400);
    }
    expect((await request(t.app).get(`${API}/unsubscribe/preview`)).status).toBe(400);
  });

  it('when a link is requested, then 200 either way, and only a known address gets a mail whose "all" token switches every type off', async () => {
    const app = createTestApp();
    const me = await createUser(t.ctx.db);
    const unknown = `nobody-${randomUUID().slice(0, 6)}@example.test`;
    const r1 = await request(app.app).post(`${API}/unsubscribe/request`).send({ email: unknown });
    const r2 = await request(app.app).post(`${API}/unsubscribe/request`).send({ email: me.email.toUpperCase() });
    expect(r1.status).toBe(200);
    expect(r2.status).toBe(200);
    expect(r1.body).toEqual(r2.body);
    expect(await t.ctx.db('mail_outbox').where({ to: unknown })).toHaveLength(0);
    const [mail] = await mailsTo(me);
    expect(mail.template).toBe('unsubscribe_request');
    const token = tokenOf(mail.headers);
    expect((await request(app.app).post(`${API}/unsubscribe`).send({ token })).body.data).toMatchObject({ category: 'all', subscribed: false });
    expect(Object.values((await prefs(me)).body.data.email).every((v) => v === false)).toBe(true);
    expect((await request(app.app).post(`${API}/unsubscribe/request`).send({ email: 'not-an-email' })).status).toBe(400);
  });

  it('when the unsubscribe writes are called more than 10 times a minute from one address, then 429 with the Auth message', async () => {
    const app = createTestApp();
    let last: request.Response | undefined;
    for (let i = 0; i < 11; i += 1) last = await request(app.app).post(`${API}/unsubscribe`).send({ token: 'x' });
    expect(last!.status).toBe(429);
    expect(last!.body.error).toBe('Too many authentication attempts, please try again later.');
  });
});
