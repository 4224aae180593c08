import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { pruneOnce } from '../../src/jobs/crontab';
import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { refreshLeaderboard } from '../../src/modules/leaderboard';
import { forgetRankingCheck } from '../../src/modules/leaderboard/leaderboard.service';
import { runErasure } from '../../src/modules/privacy';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, sessionCookies, TEST_PASSWORD, type TestUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';
import { png, storageEnv } from '../helpers/media';
import { freshIp, registerOrg } from '../helpers/organizations';

const env: Record<string, string> = { ...storageEnv(), WEBHOOK_ALLOW_PRIVATE: 'true' };
const t = createTestApp({ env });
const db = testDb();
const api = (p: string) => `/api/v1${p}`;

afterAll(closeDb);

/** Runs the due jobs until none is left (a job may queue another, e.g. the mail after an export). */
async function drain() {
  for (let i = 0; i < 10 && (await t.runJobs()) > 0; i += 1);
}

/** A user with unique strings in every personal field, and a password for session sign-ins. */
async function person(): Promise<TestUser & { slug: string; bio: string }> {
  const tag = randomUUID().slice(0, 8);
  const u = await createUser(db, { email: `erase-${tag}@example.test`, name: `Zelda Quux${tag}` });
  const slug = `zq-${tag}`;
  const bio = `bio-marker-${tag}`;
  await db('users').where({ id: u.id }).update({ profile_slug: slug, bio });
  return { ...u, slug, bio };
}

/** Every text, varchar, json and jsonb column (and text arrays) of every table holding any of `needles`. */
async function scan(needles: string[]): Promise<string[]> {
  const cols = await db('information_schema.columns')
    .where({ table_schema: 'public' })
    .whereIn('data_type', ['text', 'character varying', 'json', 'jsonb', 'ARRAY', 'bytea'])
    .select('table_name', 'column_name', 'data_type');
  const hits: string[] = [];
  for (const c of cols) {
    // bytea (stored Idempotency-Key answers) is read as its bytes, not its hex form.
    const col = c.data_type === 'bytea' ? `encode(??, 'escape')` : '??::text';
    const r = await db.raw(`select count(*)::int as n from ?? where ${col} ilike any(?::text[])`, [
      c.table_name,
      c.column_name,
      needles.map((n) => `%${n}%`),
    ]);
    if (r.rows[0].n > 0) hits.push(`${c.table_name}.${c.column_name}`);
  }
  return hits;
}

/** The donors' ranking as the API answers it, rebuilt first (the worker refreshes it every 5 minutes). */
async function board(): Promise<{ data: Array<{ kind: string; user: { id: string } | null; anonymousKey: string | null; given_cents: number }> }> {
  await refreshLeaderboard(db);
  forgetRankingCheck();
  return (await request(t.app).get(api('/leaderboard')).query({ limit: 100, audience: 'donors' }).expect(200)).body;
}

/** What the organization's reads say about the campaign's gifts: its admin's list (amount, name) and its public numbers. */
async function orgView(slug: string, id: string, fundraiserId: string, h: Record<string, string>) {
  const list = await request(t.app).get(api(`/org-admin/${slug}/donations`)).set(h).expect(200);
  const mine = (list.body.data as Array<{ fundraiser: { id: string }; amount_cents: number; donor_name: string | null; anonymous: boolean }>)
    .filter((d) => d.fundraiser.id === fundraiserId)
    .map((d) => [d.amount_cents, d.donor_name, d.anonymous])
    .sort();
  const stats = await request(t.app).get(api(`/organizations/${id}/stats`)).expect(200);
  return { mine, total: stats.body.data.total_raised_cents, donors: stats.body.data.donor_count, text: JSON.stringify([list.body, stats.body]) };
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('POST /me/data-export', () => {
  it('when an account asks, then a job builds one JSON document, mailed as a signed 7-day link served as an attachment', async () => {
    const u = await person();
    const other = await createUser(db);
    const f = await createFundraiser(db, other.id);
    await createGift(db, { fundraiserId: f.id, donorUserId: u.id, amount: 2500, message: 'gift-note-export' });
    const h = await authHeaders(t, u);
    await request(t.app).post(api(`/fundraisers/${f.id}/comments`)).set(h).send({ body: 'comment-export' });

    const r = await request(t.app).post(api('/me/data-export')).set(h);
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({ status: 'pending' });
    expect((await request(t.app).post(api('/me/data-export')).set(h)).status).toBe(429);
    expect((await request(t.app).get(api(`/me/data-exports/${r.body.data.id}`)).set(await authHeaders(t, other))).status).toBe(404);

    await drain();
    const s = await request(t.app).get(api(`/me/data-exports/${r.body.data.id}`)).set(h);
    expect(s.body.data.status).toBe('ready');
    expect(new Date(s.body.data.expires_at).getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const mail = await db('mail_outbox').where({ to: u.email, template: 'privacy_export_ready' }).first();
    expect(mail.text).toContain('/privacy/exports/');

    const dl = await request(t.app).get(new URL(s.body.data.download_url).pathname + new URL(s.body.data.download_url).search);
    expect(dl.status).toBe(200);
    expect(dl.headers['content-disposition']).toMatch(/^attachment/);
    const doc = JSON.parse(dl.text || dl.body.toString());
    expect(doc.account).toMatchObject({ email: u.email, name: u.name, bio: u.bio });
    expect(doc.gifts.map((g: { message: string }) => g.message)).toEqual(['gift-note-export']);
    expect(doc.comments.map((c: { body: string }) => c.body)).toEqual(['comment-export']);
    expect(JSON.stringify(doc)).not.toMatch(/password_hash|key_hash|secret/);

    const forged = await request(t.app).get(api(`/privacy/exports/${r.body.data.id}/download?token=x.y`));
    expect(forged.status).toBe(404);
    // Two more today, then the day's limit.
    for (let i = 0; i < 2; i += 1) {
      expect((await request(t.app).post(api('/me/data-export')).set(h)).status).toBe(202);
      await drain();
    }
    expect((await request(t.app).post(api('/me/data-export')).set(h)).status).toBe(429);
    const audit = await db('audit_log').where({ actor_user_id: u.id }).whereLike('action', 'privacy.%');
    expect(JSON.stringify(audit)).not.toContain(u.email);
  });

  it('when an API key asks, then 403', async () => {
    const u = await person();
    const key = await request(t.app).post(api('/api-keys')).set(await sessionCookies(t, u)).send({ name: 'k' });
    const r = await request(t.app).post(api('/me/data-export')).set({ Authorization: `Bearer ${key.body.api_key}` });
    expect(r.status).toBe(403);
  });
});

describe('POST /me/erasure', () => {
  it('when neither a recent sign-in nor the password confirms, then 403; a wrong password too', async () => {
    const u = await person();
    await sessionCookies(t, u); // sets TEST_PASSWORD
    const h = await authHeaders(t, u); // a bearer ID token: not a cookie session
    expect((await request(t.app).post(api('/me/erasure')).set(h).send({})).body.code).toBe('REAUTHENTICATION_REQUIRED');
    expect((await request(t.app).post(api('/me/erasure')).set(h).send({ password: 'wrong-password-1' })).status).toBe(403);
    expect((await request(t.app).post(api('/me/erasure')).set(h).send({ password: TEST_PASSWORD })).status).toBe(202);
  });

  it("when the account is an organization's only owner, then 409 ERASURE_BLOCKED with a reason that says what to do", async () => {
    const u = await person();
    await registerOrg(t, u);
    const r = await request(t.app).post(api('/me/erasure')).set(await sessionCookies(t, u)).send({});
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('ERASURE_BLOCKED');
    expect(r.body.reasons).toEqual([expect.objectContaining({ code: 'ONLY_ORGANIZATION_OWNER', message: expect.stringContaining('owner') })]);
  });

  it('when a campaign holds money not paid out, then 409 ERASURE_BLOCKED', async () => {
    const u = await person();
    const f = await createFundraiser(db, u.id);
    await createGift(db, { fundraiserId: f.id, amount: 10_000 });
    const r = await request(t.app).post(api('/me/erasure')).set(await sessionCookies(t, u)).send({});
    expect([r.status, r.body.reasons?.[0]?.code]).toEqual([409, 'MONEY_NOT_PAID_OUT']);
  });

  it('when erasure is asked, then sessions end, keys are revoked, endpoints disabled, the profile is 404 to others; signing in again and DELETE cancels', async () => {
    const u = await person();
    const cookies = await sessionCookies(t, u);
    const key = await request(t.app).post(api('/api-keys')).set(cookies).send({ name: 'k' });
    const ep = await request(t.app).post(api('/webhook-endpoints')).set(cookies).send({ url: 'http://127.0.0.1:9/hook', events: ['*'] });
    expect(ep.status).toBe(201);

    const r = await request(t.app).post(api('/me/erasure')).set(cookies).send({});
    expect(r.status).toBe(202);
    expect(new Date(r.body.data.scheduled_for).getTime() - Date.now()).toBeGreaterThan(13.9 * 86_400_000);
    expect((await request(t.app).get(api('/me/erasure')).set(cookies)).status).toBe(401);
    expect((await request(t.app).get(api('/api-keys')).set({ Authorization: `Bearer ${key.body.api_key}` })).status).toBe(401);
    expect((await db('webhook_endpoints').where({ user_id: u.id }).first()).status).toBe('disabled');
    expect((await request(t.app).get(api(`/profiles/${u.slug}`))).status).toBe(404);

    const again = await sessionCookies(t, u);
    expect((await request(t.app).get(api(`/profiles/${u.slug}`)).set(again)).status).toBe(200);
    expect((await request(t.app).get(api('/me/erasure')).set(again)).body.data).toEqual(r.body.data);
    expect((await request(t.app).delete(api('/me/erasure')).set(again)).status).toBe(200);
    expect((await request(t.app).get(api(`/profiles/${u.slug}`))).status).toBe(200);
    expect((await request(t.app).delete(api('/me/erasure')).set(again)).status).toBe(404);
  });
});

describe('erasure at the scheduled time', () => {
  it('when an account that used the features is erased, then no table and no stored file holds its strings, money stays true and anonymous, sign-in fails', async () => {
    const u = await person();
    const owner = await createUser(db);
    const org = await registerOrg(t, owner);
    const theirs = await createFundraiser(db, owner.id, { org_id: org.id });
    const mine = await createFundraiser(db, u.id, { is_project: true });
    const ownerH = await authHeaders(t, owner);
    const cookies = await sessionCookies(t, u);
    const h = await authHeaders(t, u);
    const tag = u.slug;

    // Through the API: profile, campaign update and milestone, upload, comments, likes, follows, blocks, key, endpoint.
    expect((await request(t.app).patch(api('/users/me/profile')).set(h).send({ bio: u.bio })).status).toBe(200);
    // Idempotent requests: their stored answers (24 h) echo the update and the comment.
    expect((await request(t.app).post(api(`/projects/${mine.id}/updates`)).set(h).set('Idempotency-Key', randomUUID()).send({ title: `upd-${tag}`, body: `update-body-${tag}` })).status).toBe(201);
    expect((await request(t.app).post(api(`/projects/${mine.id}/milestones`)).set(h).send({ title: 'First stage', amount_cents: 1000 })).status).toBe(201);
    const up = await request(t.app).post(api(`/fundraisers/${mine.id}/media`)).set(h).attach('file', await png(6, 6), 'a.png');
    expect(up.status).toBe(201);
    const c = await request(t.app).post(api(`/fundraisers/${theirs.id}/comments`)).set(h).set('Idempotency-Key', randomUUID()).send({ body: `comment-${tag}` });
    expect(c.status).toBe(201);
    const ownerComment = await request(t.app).post(api(`/fundraisers/${theirs.id}/comments`)).set(await authHeaders(t, owner)).send({ body: 'hello' });
    expect((await request(t.app).put(api(`/comments/${ownerComment.body.data?.id ?? ownerComment.body.id}/like`)).set(h)).status).toBeLessThan(300);
    expect((await request(t.app).post(api('/subscriptions')).set(h).send({ following_type: 'user', following_id: owner.id })).status).toBeLessThan(300);
    expect((await request(t.app).put(api(`/users/${(await createUser(db)).id}/block`)).set(h)).status).toBeLessThan(300);
    expect((await request(t.app).post(api('/api-keys')).set(cookies).send({ name: `key-${tag}` })).status).toBe(201);
    expect((await request(t.app).post(api('/webhook-endpoints')).set(cookies).send({ url: 'http://127.0.0.1:9/hook', events: ['*'], description: `ep-${tag}` })).status).toBe(201);
    // Gifts given with a donor note (settled as the processor's webhook leaves them).
    const gifts = [];
    for (let i = 0; i < 3; i += 1) gifts.push(await createGift(db, { fundraiserId: theirs.id, donorUserId: u.id, amount: 1000 + i, message: `note-${tag}` }));
    await db('donations').where({ donor_user_id: u.id }).update({ donor_email: u.email, donor_name: u.name });
    await drain();
    const before = await request(t.app).get(api(`/donations/receipt/${gifts[0]!.receipt_id}`));
    expect(before.status).toBe(200);
    expect(Number((await db('idempotency_keys').where({ scope: u.id, state: 'complete' }).count({ n: '*' }))[0]!.n)).toBe(2);
    const boardBefore = await board();
    expect(boardBefore.data.find((r) => r.user?.id === u.id)?.given_cents).toBe(3003);
    const orgBefore = await orgView(org.slug, org.id, theirs.id, ownerH);
    expect(orgBefore.mine).toEqual([
      [1000, u.name, false],
      [1001, u.name, false],
      [1002, u.name, false],
    ]);

    expect((await request(t.app).post(api('/me/erasure')).set(cookies).send({})).status).toBe(202);
    expect(await runErasure(t.ctx, collected.personalData, u.id, true)).toBe('done');
    await drain();

    expect(await scan([u.email, u.name!, u.slug, u.bio, `note-${tag}`, `comment-${tag}`, `update-body-${tag}`])).toEqual([]);
    const stored = filesUnder(env.STORAGE_DIR!).filter((p) => p.includes(u.id));
    expect(stored).toEqual([]);
    expect(await checkLedger(db)).toEqual([]);

    const receipt = await request(t.app).get(api(`/donations/receipt/${gifts[0]!.receipt_id}`));
    expect(receipt.status).toBe(200);
    expect(JSON.stringify(receipt.body)).not.toContain(u.name!);
    expect(receipt.body.data?.amount_cents ?? receipt.body.amount_cents).toBe(1000);
    const recent = await request(t.app).get(api(`/donations/recent?fundraiser_id=${theirs.id}`));
    expect(JSON.stringify(recent.body)).not.toContain(u.name!);
    // Leaderboard and donor page: the account's row is gone, its gifts are one anonymous alias with the same total.
    const boardAfter = await board();
    expect(boardAfter.data.find((r) => r.user?.id === u.id)).toBeUndefined();
    expect(JSON.stringify(boardAfter)).not.toContain(u.name!);
    const alias = boardAfter.data.find((r) => r.kind === 'anonymous' && r.given_cents === 3003);
    expect(alias?.anonymousKey).toMatch(/^[0-9a-f]{20}$/);
    const donorPage = await request(t.app).get(api(`/donors/anon/${alias!.anonymousKey}`)).expect(200);
    expect([donorPage.body.data.given_cents, donorPage.body.data.name]).toEqual([3003, null]);
    expect(JSON.stringify(donorPage.body)).not.toContain(u.name!);
    // Organization reads: the same amounts and totals, no name.
    const orgAfter = await orgView(org.slug, org.id, theirs.id, ownerH);
    expect(orgAfter.mine).toEqual([
      [1000, null, true],
      [1001, null, true],
      [1002, null, true],
    ]);
    expect([orgAfter.total, orgAfter.donors]).toEqual([orgBefore.total, orgBefore.donors]);
    expect(orgAfter.text).not.toContain(u.name!);
    expect(orgAfter.text).not.toContain(u.email);
    expect((await db('donations').where({ donor_user_id: u.id }).select('amount_cents', 'anonymous')).map((g) => [Number(g.amount_cents), g.anonymous]).sort()).toEqual([
      [1000, true],
      [1001, true],
      [1002, true],
    ]);
    expect((await db('fundraisers').where({ id: mine.id }).first()).deleted_at).not.toBeNull();
    expect((await request(t.app).get(api(`/profiles/${u.id}`))).status).toBe(404);

    // The erased credentials no longer sign in.
    await expect(t.ctx.idp.initiateAuth(u.email, TEST_PASSWORD)).rejects.toThrow();
    const audit = await db('audit_log').where({ target_id: u.id }).whereLike('action', 'privacy.%').pluck('action');
    expect(audit).toEqual(expect.arrayContaining(['privacy.erasure_requested', 'privacy.erased']));
  });
});

describe('expired exports', () => {
  it('when an export is 7 days old, then the prune marks it expired and removes its file; a newer one stays', async () => {
    const u = await person();
    const h = await authHeaders(t, u);
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      ids.push((await request(t.app).post(api('/me/data-export')).set(h).expect(202)).body.data.id);
      await drain();
    }
    const rows = await db('privacy_exports').whereIn('id', ids).orderBy('created_at');
    const file = (k: string) => path.join(env.STORAGE_DIR!, k);
    expect(rows.map((r) => [r.status, fs.existsSync(file(r.storage_key))])).toEqual([
      ['ready', true],
      ['ready', true],
    ]);
    // Seven days on for the first: its link has run out.
    await db('privacy_exports').where({ id: ids[0] }).update({ expires_at: new Date(Date.now() - 60_000) });
    const pruned = await pruneOnce(t.ctx);
    expect(pruned.privacy_exports).toBeGreaterThanOrEqual(1);
    await drain();

    const after = await db('privacy_exports').whereIn('id', ids).orderBy('created_at');
    expect(after.map((r) => [r.status, r.storage_key])).toEqual([
      ['expired', null],
      ['ready', rows[1].storage_key],
    ]);
    expect([fs.existsSync(file(rows[0].storage_key)), fs.existsSync(file(rows[1].storage_key))]).toEqual([false, true]);
    expect((await request(t.app).get(api(`/me/data-exports/${ids[0]}`)).set(h)).body.data).toMatchObject({ status: 'expired', download_url: null });
  });
});

describe('guests: POST /privacy/requests', () => {
  // Its own app: the strict limiter (5 a minute) counts every guest request of this file otherwise.
  let g: ReturnType<typeof createTestApp>;
  beforeEach(() => {
    g = createTestApp({ env });
  });

  it('when a guest confirms an erasure, then every guest gift of the address is anonymous at once and the link works once', async () => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    const email = `guest-${randomUUID().slice(0, 8)}@example.test`;
    const gift = await createGift(db, { fundraiserId: f.id, donorEmail: email, amount: 1234, message: `guest-note-${email}` });
    // The settled gift's event gives the address a public donor page, keyed by the address itself.
    for (let i = 0; i < 10 && (await g.runJobs()) > 0; i += 1);
    expect(Number((await db('donor_keys').where({ kind: 'guest', identity: email }).count({ n: '*' }))[0]!.n)).toBe(1);
    const unknown = await request(g.app).post(api('/privacy/requests')).set('X-Forwarded-For', freshIp()).send({ email: `nobody-${randomUUID().slice(0, 8)}@example.test`, kind: 'erasure' });
    const r = await request(g.app).post(api('/privacy/requests')).set('X-Forwarded-For', freshIp()).send({ email, kind: 'erasure' });
    expect([r.status, unknown.status, unknown.body.message]).toEqual([200, 200, r.body.message]);
    const mail = await db('mail_outbox').where({ to: email, template: 'privacy_request_confirm' }).first();
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];

    const ok = await request(g.app).post(api('/privacy/requests/confirm')).set('X-Forwarded-For', freshIp()).send({ token });
    expect([ok.status, ok.body.data]).toEqual([200, { kind: 'erasure', status: 'done' }]);
    expect((await request(g.app).post(api('/privacy/requests/confirm')).set('X-Forwarded-For', freshIp()).send({ token })).status).toBe(400);
    const row = await db('donations').where({ id: gift.id }).first();
    expect([Number(row.amount_cents), row.anonymous, row.message]).toEqual([1234, true, null]);
    expect(await scan([email])).toEqual([]);
    expect(await checkLedger(db)).toEqual([]);
  });

  it('when a guest confirms an export, then the export is mailed as a link', async () => {
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    const email = `guest-${randomUUID().slice(0, 8)}@example.test`;
    await createGift(db, { fundraiserId: f.id, donorEmail: email, amount: 777 });
    await request(g.app).post(api('/privacy/requests')).set('X-Forwarded-For', freshIp()).send({ email, kind: 'export' });
    const mail = await db('mail_outbox').where({ to: email, template: 'privacy_request_confirm' }).first();
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
    const ok = await request(g.app).post(api('/privacy/requests/confirm')).set('X-Forwarded-For', freshIp()).send({ token });
    expect([ok.status, ok.body.data]).toEqual([200, { kind: 'export', status: 'pending' }]);
    for (let i = 0; i < 10 && (await g.runJobs()) > 0; i += 1);
    const ready = await db('mail_outbox').where({ to: email, template: 'privacy_export_ready' }).first();
    const link = new URL(/(http\S+\/download\?token=\S+)/.exec(ready.text)![1]!);
    const dl = await request(g.app).get(link.pathname + link.search);
    expect(dl.status).toBe(200);
    expect(JSON.parse(dl.text || dl.body.toString()).gifts.map((x: { amount_cents: string }) => Number(x.amount_cents))).toEqual([777]);
  });
});
