import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { eraseNow } from '../../src/modules/privacy';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, sessionCookies } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { filesHolding, findStrings, needlesOf, personStrings } from '../helpers/erasure-scan';
import { createFundraiser } from '../helpers/fundraisers';
import { png, storageEnv } from '../helpers/media';
import { freshIp } from '../helpers/organizations';
import { webhookApi, webhookReceiver } from '../helpers/webhook-receiver';

/**
 * An erased person's words and identifiers survive nowhere: not in their own rows, and not in the
 * copies made of them for other people (notifications, mails, outbound webhook payloads and
 * deliveries, stored Idempotency-Key answers, the event log, job payloads, audit details...).
 * What to look for is read from the data before the erasure, and where to look is every column
 * of every table the database has, so a table or a copy added tomorrow is covered too.
 */
const env: Record<string, string> = { ...storageEnv(), WEBHOOK_ALLOW_PRIVATE: 'true' };
const t = createTestApp({ env });
const db = testDb();
const hooks = webhookReceiver();
const { endpointFor } = webhookApi(t);
const api = (p: string) => `/api/v1${p}`;

afterAll(closeDb);

async function drain(app = t) {
  for (let i = 0; i < 20 && (await app.runJobs()) > 0; i += 1);
}

/** A random tag: every string the person makes carries it, so any later hit is theirs. */
const newTag = () => `zq${randomBytes(5).toString('hex')}`;

/** `who`'s own data export, built now (its notifications quote the gifts to their campaigns): the file's path. */
async function exportFileOf(who: Record<string, string>, app = t): Promise<string> {
  const r = await request(app.app).post(api('/me/data-export')).set(who);
  expect(r.status).toBe(202);
  await drain(app);
  const row = await db('privacy_exports').where({ id: r.body.data.id }).first();
  expect(row.status).toBe('ready');
  return path.join(env.STORAGE_DIR!, row.storage_key);
}

/** A campaign holder with an outbound webhook endpoint for all events of their campaigns. */
async function holderWithEndpoint() {
  const holder = await createUser(db);
  const h = await authHeaders(t, holder);
  const hookPath = hooks.path('ok');
  await endpointFor(h, `${hooks.base()}${hookPath}`);
  const campaign = await createFundraiser(db, holder.id);
  return { holder, h, campaign, path: hookPath };
}

describe('erasure leaves no copy of the person anywhere', () => {
  it("when an account that wrote, gave and was quoted to others is erased, then no table, JSON value or stored file holds its words or identifiers", async () => {
    const tag = newTag();
    const { holder, h: holderH, campaign: theirs, path: hookPath } = await holderWithEndpoint();
    const u = await createUser(db, { email: `erase-${tag}@example.test`, name: `Zelda Quux${tag}` });
    const h = await authHeaders(t, u);
    const cookies = await sessionCookies(t, u);
    const mine = await createFundraiser(db, u.id, { is_project: true });

    // Profile fields, through the API.
    const profile = await request(t.app).patch(api('/users/me/profile')).set(h).send({ name: `Zelda Quux${tag}`, slug: `zq-${tag}`, bio: `bio ${tag} loves hiking` });
    expect(profile.status).toBe(200);
    // An update on their own campaign, and comments on another's (one long: mails quote it cut).
    expect((await request(t.app).post(api(`/projects/${mine.id}/updates`)).set(h).set('Idempotency-Key', randomUUID()).send({ title: `upd ${tag}`, body: `update body ${tag} thanks all` })).status).toBe(201);
    const longBody = `long ${tag}-c1 ${'words that go on and on '.repeat(10)}end`;
    const c1 = await request(t.app).post(api(`/fundraisers/${theirs.id}/comments`)).set(h).set('Idempotency-Key', randomUUID()).send({ body: longBody });
    expect(c1.status).toBe(201);
    const holderComment = await request(t.app).post(api(`/fundraisers/${theirs.id}/comments`)).set(holderH).send({ body: 'Thank you all' });
    expect(holderComment.status).toBe(201);
    const reply = await request(t.app).post(api(`/fundraisers/${theirs.id}/comments`)).set(h).send({ body: `reply ${tag}-r1 you are welcome`, parent_id: holderComment.body.data.id });
    expect(reply.status).toBe(201);
    expect((await request(t.app).post(api(`/fundraisers/${theirs.id}/endorse`)).set(h).send({ message: `endorse ${tag}-e1 great cause` })).status).toBe(201);
    expect((await request(t.app).post(api('/reports')).set(h).send({ target_type: 'fundraiser', target_id: theirs.id, reason: `reason ${tag}-p1`, details: `details ${tag}-d1 see page` })).status).toBe(201);
    expect((await request(t.app).post(api(`/fundraisers/${mine.id}/media`)).set(h).attach('file', await png(6, 6), `upload-${tag}.png`)).status).toBe(201);
    expect((await request(t.app).post(api('/api-keys')).set(cookies).send({ name: `key ${tag}` })).status).toBe(201);
    // A gift with a note, to the holder's campaign: the holder's notification, mail and webhook quote it.
    await createGift(db, { fundraiserId: theirs.id, donorUserId: u.id, donorName: `Zelda Quux${tag}`, donorEmail: u.email, amount: 1500, message: `note ${tag}-n1 for you` });
    await drain();

    const strings = await personStrings(db, tag, { userId: u.id, email: u.email });
    // The data itself names what the person wrote (a sanity check of the collection, not its source).
    for (const s of [u.email, `zq-${tag}`, `Zelda Quux${tag}`, longBody, `note ${tag}-n1 for you`, `reason ${tag}-p1`]) expect(strings).toContain(s);
    const needles = needlesOf(strings, tag);
    const before = await findStrings(db, needles);
    // The copies exist before the erasure, so finding none after it means something.
    expect(before).toEqual(
      expect.arrayContaining(['public.notifications.message', 'public.notifications.metadata', 'public.mail_outbox.text', 'public.webhook_deliveries.payload', 'public.events.payload', 'public.idempotency_keys.response_body']),
    );
    expect(hooks.at(hookPath).length).toBeGreaterThan(0);
    // The holder's own export, made before the erasure, quotes the person (their gift's notice, their comments).
    const holderExport = await exportFileOf(holderH);
    expect(filesHolding(env.STORAGE_DIR!, needles)).toContain(holderExport);

    expect((await request(t.app).post(api('/me/erasure')).set(cookies).send({})).status).toBe(202);
    expect(await eraseNow(t.ctx, collected.personalData, u.id)).toBe('done');
    await drain();

    expect(await findStrings(db, needles)).toEqual([]);
    expect(filesHolding(env.STORAGE_DIR!, needles)).toEqual([]);
    // No file is theirs any more. The account's bare id stays where the database keeps it too (it names nobody now): in the
    // holder's export, and in the erasure log's entry, which is how a restore of an older backup erases the account again.
    const logEntry = (f: string) => f.startsWith(path.join(env.STORAGE_DIR!, 'erasure-log') + path.sep);
    expect(filesHolding(env.STORAGE_DIR!, [u.id]).filter((f) => f !== holderExport && !logEntry(f))).toEqual([]);
    expect(filesHolding(env.STORAGE_DIR!, [u.id]).filter(logEntry)).toHaveLength(1);
    expect(() => JSON.parse(fs.readFileSync(holderExport, 'utf8'))).not.toThrow();
    // Money stays, pseudonymised.
    expect(await checkLedger(db)).toEqual([]);
    const gift = await db('donations').where({ donor_user_id: u.id }).first();
    expect([Number(gift.amount_cents), gift.anonymous]).toEqual([1500, true]);
    // The holder's copies keep their sense.
    const notice = await db('notifications').where({ user_id: holder.id, type: 'donation_received' }).first();
    expect(notice.message).toMatch(/\S/);
  });

  it('when a guest who gave with a name and a note confirms an erasure, then no table, JSON value or stored file holds them', async () => {
    const tag = newTag();
    const g = createTestApp({ env });
    const { path: hookPath, h: holderH, campaign } = await holderWithEndpoint();
    const email = `guest-${tag}@example.test`;
    for (const [i, amount] of [700, 900].entries()) {
      await createGift(db, { fundraiserId: campaign.id, donorEmail: email, donorName: `Gwen Guest${tag}`, amount, message: `guest note ${tag}-g${i} good luck` });
    }
    await drain(g);
    const strings = await personStrings(db, tag, { email });
    for (const s of [email, `Gwen Guest${tag}`, `guest note ${tag}-g1 good luck`]) expect(strings).toContain(s);
    const needles = needlesOf(strings, tag);
    expect(await findStrings(db, needles)).toEqual(expect.arrayContaining(['public.notifications.message', 'public.webhook_deliveries.payload', 'public.events.payload']));
    expect(hooks.at(hookPath).length).toBeGreaterThan(0);
    // The holder's own export, made before the erasure, quotes the guest (a notice of each gift).
    const holderExport = await exportFileOf(holderH, g);
    expect(filesHolding(env.STORAGE_DIR!, needles)).toContain(holderExport);

    expect((await request(g.app).post(api('/privacy/requests')).set('X-Forwarded-For', freshIp()).send({ email, kind: 'erasure' })).status).toBe(200);
    const mail = await db('mail_outbox').where({ to: email, template: 'privacy_request_confirm' }).first();
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
    const ok = await request(g.app).post(api('/privacy/requests/confirm')).set('X-Forwarded-For', freshIp()).send({ token });
    expect([ok.status, ok.body.data]).toEqual([200, { kind: 'erasure', status: 'done' }]);
    await drain(g);

    expect(await findStrings(db, needles)).toEqual([]);
    expect(filesHolding(env.STORAGE_DIR!, needles)).toEqual([]);
    // The holder's export is still theirs to download, and still JSON.
    expect(() => JSON.parse(fs.readFileSync(holderExport, 'utf8'))).not.toThrow();
    expect(await checkLedger(db)).toEqual([]);
    expect((await db('donations').where({ fundraiser_id: campaign.id }).select('amount_cents')).map((r) => Number(r.amount_cents)).sort()).toEqual([700, 900]);
  });
});
