import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeDb, createTestApp } from '../helpers/app';
import { authHeaders, createUser, type TestUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const db = t.ctx.db;
const api = '/api/v1/fundraisers';

/** A publishable body with a title no other campaign shares. */
function body(overrides: Record<string, unknown> = {}) {
  return {
    title: `Campaign ${randomUUID()}`,
    summary: 'Help us rebuild',
    story_html: '<p>Our community centre burned down and we need to rebuild it.</p>',
    goal_amount_cents: 500_000,
    cover_image: 'https://img.example.test/cover.jpg',
    ...overrides,
  };
}

/** A user who passes profile readiness (name, verified email, verified private contact). */
const ready = () => createUser(db, { private_contact_verified: true });

async function post(user: TestUser, b: Record<string, unknown>) {
  return request(t.app).post(api).set(await authHeaders(t, user)).send(b);
}
async function patch(user: TestUser, id: string, b: Record<string, unknown>) {
  return request(t.app).patch(`${api}/${id}`).set(await authHeaders(t, user)).send(b);
}

describe('POST /fundraisers: transition table (create rows)', () => {
  test('when status is draft then a draft is created and the gate is skipped', async () => {
    const u = await createUser(db, { private_contact_verified: false, name: null });
    const res = await post(u, { title: 'x', goal_amount_cents: 0, status: 'draft' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'draft', title: 'x', owner_user_id: u.id, approved_at: null });
  });

  test('when status is omitted and the gate would pass then the campaign is a draft', async () => {
    const res = await post(await ready(), body());
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('draft');
    expect(res.body.data.approved_at).toBeNull();
  });

  test('when status is omitted and the gate blocks then 403 PUBLISH_GATE_FAILED and nothing is created', async () => {
    const u = await ready();
    const title = `Campaign ${randomUUID()}`;
    const res = await post(u, body({ title, cover_image: null, goal_amount_cents: 0 }));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('PUBLISH_GATE_FAILED');
    expect(res.body.reasons).toEqual(expect.arrayContaining(['image_required', 'goal_out_of_range']));
    expect(await db('fundraisers').where({ title })).toHaveLength(0);
  });

  test('when status is omitted and the review flags then pending', async () => {
    const res = await post(await ready(), body({ story_html: '<p>We accept bitcoin for the repairs of our roof.</p>' }));
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('pending');
    expect(res.body.data.approved_at).toBeNull();
  });

  test('when status is omitted and the profile is not ready then 403 with the readiness reasons', async () => {
    const res = await post(await createUser(db, { private_contact_verified: false }), body());
    expect(res.status).toBe(403);
    expect(res.body.reasons).toContain('private_contact_not_verified');
  });

  test('when status is draft and the gate would block then the draft is saved with the review in trustStatus', async () => {
    const res = await post(await ready(), body({ cover_image: null, goal_amount_cents: 0, status: 'draft' }));
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('draft');
    expect(res.body.data.trustStatus.aiDecision).toBe('block');
  });

  test('when status is active and the gate passes then active with approved_at', async () => {
    const res = await post(await ready(), body({ status: 'active' }));
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('active');
    expect(new Date(res.body.data.approved_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(res.body.data.trustStatus).toMatchObject({ aiDecision: 'approve', payoutHold: false, rejectionReasons: [] });
  });

  test('when status is active and the review flags then pending', async () => {
    const res = await post(await ready(), body({ status: 'active', story_html: '<p>We accept bitcoin for the repairs of our roof.</p>' }));
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('pending');
    expect(res.body.data.approved_at).toBeNull();
    expect(res.body.data.trustStatus.rejectionReasons).toContain('sensitive_content');
  });

  test('when status is pending and the gate passes then pending (sent to review)', async () => {
    const res = await post(await ready(), body({ status: 'pending' }));
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('pending');
  });

  test('when the review blocks then 403 PUBLISH_GATE_FAILED and nothing is created', async () => {
    const u = await ready();
    const title = `Campaign ${randomUUID()}`;
    const res = await post(u, body({ title, status: 'active', story_html: '<p>A ponzi plan with guaranteed returns for everyone.</p>' }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'Forbidden', code: 'PUBLISH_GATE_FAILED' });
    expect(res.body.reasons).toContain('prohibited_content');
    expect(await db('fundraisers').where({ title })).toHaveLength(0);
  });

  test.each([
    ['no image', { cover_image: null, images: null }, 'image_required'],
    ['goal too small', { goal_amount_cents: 50 }, 'goal_out_of_range'],
    ['goal over $10M', { goal_amount_cents: 1_000_000_001 }, 'goal_out_of_range'],
    ['end date in the past', { end_date: '2020-01-01' }, 'end_date_in_past'],
    ['end date beyond a year', { end_date: new Date(Date.now() + 400 * 86_400_000).toISOString().slice(0, 10) }, 'end_date_too_far'],
    ['title too short', { title: 'Hey' }, 'title_too_short'],
    ['story too short', { story_html: '<p>Short</p>' }, 'story_too_short'],
  ])('when publishing with %s then 403 with reason %s', async (_n, over, reason) => {
    const res = await post(await ready(), body({ status: 'active', ...over }));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('PUBLISH_GATE_FAILED');
    expect(res.body.reasons).toContain(reason);
    expect(res.body.messages).toEqual(expect.arrayContaining([expect.objectContaining({ code: reason.toUpperCase() })]));
  });

  test('when an image is only in images then the image rule passes', async () => {
    const res = await post(await ready(), body({ status: 'active', cover_image: null, images: ['https://img.example.test/1.jpg'] }));
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('active');
  });

  test('when the profile is not ready then 403 with the readiness reasons', async () => {
    const noName = await createUser(db, { private_contact_verified: true, name: null });
    let res = await post(noName, body({ status: 'active' }));
    expect(res.status).toBe(403);
    expect(res.body.reasons).toContain('profile_name_missing');
    const noContact = await createUser(db, { private_contact_verified: false });
    res = await post(noContact, body({ status: 'active' }));
    expect(res.status).toBe(403);
    expect(res.body.reasons).toContain('private_contact_not_verified');
  });

  test('when an unverified caller publishes then 403 EMAIL_NOT_VERIFIED', async () => {
    const u = await createUser(db, { email_verified: false, private_contact_verified: true });
    for (const status of ['active', 'pending']) {
      const res = await post(u, body({ status }));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        error: 'Forbidden', message: 'Please verify your email address to continue', code: 'EMAIL_NOT_VERIFIED', action: 'verify_email',
      });
    }
  });

  test('when an unverified caller holds 5 drafts then the 6th is 403 UNVERIFIED_DRAFT_LIMIT', async () => {
    const u = await createUser(db, { email_verified: false });
    for (let i = 0; i < 5; i += 1) {
      const r = await post(u, body({ status: 'draft' }));
      expect(r.status).toBe(201);
    }
    const res = await post(u, body({ status: 'draft' }));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('UNVERIFIED_DRAFT_LIMIT');
    // Status omitted runs the gate, which an unverified caller cannot pass.
    const omitted = await post(u, body());
    expect(omitted.status).toBe(403);
    expect(omitted.body.reasons).toContain('email_not_verified');
    expect(await db('fundraisers').where({ owner_user_id: u.id })).toHaveLength(5);
  });

  test('when a verified caller holds 5 drafts then a 6th is allowed', async () => {
    const u = await createUser(db);
    for (let i = 0; i < 6; i += 1) expect((await post(u, body({ status: 'draft' }))).status).toBe(201);
  });

  test('when a title repeats then the slug gets a suffix', async () => {
    const u = await ready();
    const title = `Same title ${randomUUID().slice(0, 8)}`;
    const a = await post(u, { title, goal_amount_cents: 1000, status: 'draft' });
    const b = await post(u, { title, goal_amount_cents: 1000, status: 'draft' });
    expect(a.body.data.slug).toBe(title.toLowerCase().replace(/ /g, '-'));
    expect(b.body.data.slug).toMatch(new RegExp(`^${a.body.data.slug}-[0-9a-f]{6}$`));
  });
});

describe('POST /fundraisers: input', () => {
  test('when story_html carries scripts, handlers, javascript: and protocol-relative links then they are stripped and links get rel', async () => {
    const res = await post(await ready(), body({
      story_html:
        '<p onclick="x()">Hi<script>alert(1)</script></p><img src="https://i.test/a.png" onerror="alert(1)">' +
        '<a href="javascript:alert(1)">bad</a><a href="//evil.test/x">proto</a><a href="https://ok.test">ok</a>' +
        '<iframe src="https://evil.test"></iframe><a href="mailto:a@b.test">mail</a><style>p{}</style>',
      status: 'draft',
    }));
    expect(res.status).toBe(201);
    const html: string = res.body.data.story_html;
    expect(html).not.toMatch(/script|onerror|onclick|javascript:|iframe|style|evil\.test/i);
    expect(html).toContain('<img src="https://i.test/a.png" />');
    expect(html).toContain('<a href="https://ok.test" rel="noopener noreferrer" target="_blank">ok</a>');
    expect(html).toContain('<a href="mailto:a@b.test" rel="noopener noreferrer" target="_blank">mail</a>');
    expect(html).toContain('<a rel="noopener noreferrer" target="_blank">proto</a>');
  });

  test('when fields have wrong types then 400 with details per failure', async () => {
    const res = await post(await ready(), { title: 5, goal_amount_cents: '100', tags: 'x', visibility: 'secret' });
    expect(res.status).toBe(400);
    const paths = res.body.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['body.title', 'body.goal_amount_cents', 'body.tags', 'body.visibility']));
  });

  test('when required fields are missing or money is fractional then 400', async () => {
    const u = await ready();
    expect((await post(u, { goal_amount_cents: 100 })).status).toBe(400);
    expect((await post(u, { title: 'Hello there', goal_amount_cents: 10.5 })).status).toBe(400);
    expect((await post(u, body({ status: 'paused' }))).status).toBe(400);
    expect((await post(u, body({ cover_image: 'javascript:alert(1)' }))).status).toBe(400);
    expect((await post(u, body({ category: 'no-such-category' }))).body.details[0].path).toBe('body.category');
  });

  test('when a text field carries a NUL byte then 400, never 500', async () => {
    const res = await post(await ready(), body({ title: 'Nul \u0000 title', status: 'draft' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Bad request');
    const slug = await request(t.app).get(`${api}/slug/a%00b`);
    expect(slug.status).toBe(400);
  });

  test('when unknown fields are sent then they are ignored', async () => {
    const res = await post(await ready(), body({ raised_cents: 999, owner_user_id: randomUUID(), approved_at: '2020-01-01T00:00:00Z', status: 'draft' }));
    expect(res.status).toBe(201);
    const row = await db('fundraisers').where({ id: res.body.data.id }).first();
    expect(Number(row.raised_cents)).toBe(0);
    expect(row.approved_at).toBeNull();
  });

  test('when every writable field is sent then the owner reads it back', async () => {
    const cat = await db('categories').first();
    const res = await post(await ready(), body({
      currency: 'eur', type: 'charity', is_project: true, category: cat ? String(cat.id) : null, tags: ['Water', 'water', 'wells'],
      cover_image_focal_x: 0.3, cover_image_focal_y: 0.7, images: ['https://img.example.test/2.jpg'], video_url: 'https://video.example.test/v',
      location: 'Austin, TX', beneficiary_name: 'Village', beneficiary_contact: 'chief@village.test', end_date: '2999-01-01', visibility: 'unlisted',
      status: 'draft',
    }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      currency: 'EUR', type: 'charity', is_project: true, category: cat ? String(cat.id) : null, tags: ['water', 'wells'],
      cover_image_focal_x: 0.3, cover_image_focal_y: 0.7, images: ['https://img.example.test/2.jpg'], video_url: 'https://video.example.test/v',
      location: 'Austin, TX', beneficiary_name: 'Village', beneficiary_contact: 'chief@village.test', end_date: '2999-01-01', visibility: 'unlisted',
      cover_tint: null, donations_last_24h: 0, source_language: 'en',
    });
  });

  test('when unauthenticated then 401', async () => {
    const res = await request(t.app).post(api).send(body());
    expect(res.status).toBe(401);
  });

  test('when features.fundraiser_creation is off then 403 with feature_key', async () => {
    const t2 = createTestApp();
    jest.spyOn(t2.ctx.flags, 'isEnabled').mockImplementation(async (k) => k !== 'features.fundraiser_creation');
    const u = await ready();
    const res = await request(t2.app).post(api).set(await authHeaders(t2, u)).send(body());
    expect(res.status).toBe(403);
    expect(res.body.feature_key).toBe('features.fundraiser_creation');
  });

  test('when features.fundraiser_video is off then a video_url is refused with feature_key', async () => {
    const t2 = createTestApp();
    jest.spyOn(t2.ctx.flags, 'isEnabled').mockImplementation(async (k) => k !== 'features.fundraiser_video');
    const u = await ready();
    const res = await request(t2.app).post(api).set(await authHeaders(t2, u)).send(body({ video_url: 'https://v.test/x' }));
    expect(res.status).toBe(403);
    expect(res.body.feature_key).toBe('features.fundraiser_video');
    const ok = await request(t2.app).post(api).set(await authHeaders(t2, u)).send(body());
    expect(ok.status).toBe(201);
  });
});

describe('PATCH /fundraisers/:id: transition table (update rows)', () => {
  async function draftOf(u: TestUser, over: Record<string, unknown> = {}) {
    const r = await post(u, body({ status: 'draft', ...over }));
    return r.body.data.id as string;
  }

  test('when a draft is updated to active and the gate passes then active with approved_at', async () => {
    const u = await ready();
    const res = await patch(u, await draftOf(u), { status: 'active' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('active');
    expect(res.body.data.approved_at).not.toBeNull();
  });

  test('when a draft is updated to active or pending and the gate flags then pending', async () => {
    const u = await ready();
    for (const status of ['active', 'pending']) {
      const id = await draftOf(u, { story_html: `<p>Our casino night fundraiser for the school ${randomUUID()}</p>` });
      const res = await patch(u, id, { status });
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('pending');
    }
  });

  test('when a draft is updated to pending and the gate passes then pending', async () => {
    const u = await ready();
    const res = await patch(u, await draftOf(u), { status: 'pending' });
    expect(res.body.data.status).toBe('pending');
  });

  test('when the gate blocks an update then 403 and nothing changes', async () => {
    const u = await ready();
    const id = await draftOf(u);
    const res = await patch(u, id, { status: 'active', title: 'Brand new title here', cover_image: null });
    expect(res.status).toBe(403);
    expect(res.body.reasons).toContain('image_required');
    const row = await db('fundraisers').where({ id }).first();
    expect(row.status).toBe('draft');
    expect(row.title).not.toBe('Brand new title here');
  });

  test('when an unverified owner edits a draft without status then 200, but publishing is 403 EMAIL_NOT_VERIFIED', async () => {
    const u = await createUser(db, { email_verified: false, private_contact_verified: true });
    const id = await draftOf(u);
    expect((await patch(u, id, { summary: 'changed' })).status).toBe(200);
    expect((await patch(u, id, { summary: 'again', status: 'draft' })).status).toBe(200);
    for (const status of ['active', 'pending']) {
      const res = await patch(u, id, { status });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'EMAIL_NOT_VERIFIED', action: 'verify_email' });
    }
  });

  test('when an unverified owner edits a live campaign then 403 EMAIL_NOT_VERIFIED', async () => {
    const u = await createUser(db, { email_verified: false });
    const f = await createFundraiser(db, u.id, { status: 'active' });
    const res = await patch(u, f.id, { summary: 'new' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('EMAIL_NOT_VERIFIED');
  });

  test('when a live campaign that collected money is moved to draft then 409 FUNDS_COLLECTED', async () => {
    const u = await ready();
    const f = await createFundraiser(db, u.id, { status: 'active', raised_cents: 500 });
    const res = await patch(u, f.id, { status: 'draft' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('FUNDS_COLLECTED');
    expect((await db('fundraisers').where({ id: f.id }).first()).status).toBe('active');
  });

  test('when a live campaign without money is moved to draft then draft', async () => {
    const u = await ready();
    const f = await createFundraiser(db, u.id, { status: 'active' });
    const res = await patch(u, f.id, { status: 'draft' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('draft');
  });

  test('when the owner pauses, resumes and ends then active -> paused -> active -> ended', async () => {
    const u = await ready();
    const f = await createFundraiser(db, u.id, { status: 'active' });
    expect((await patch(u, f.id, { status: 'paused' })).body.data.status).toBe('paused');
    expect((await patch(u, f.id, { status: 'active' })).body.data.status).toBe('active');
    expect((await patch(u, f.id, { status: 'paused' })).body.data.status).toBe('paused');
    expect((await patch(u, f.id, { status: 'ended' })).body.data.status).toBe('ended');
    const res = await patch(u, f.id, { status: 'active' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('INVALID_STATUS_TRANSITION');
  });

  test.each([
    ['pending', 'active'], ['pending', 'draft'], ['rejected', 'active'], ['rejected', 'pending'], ['draft', 'paused'],
    ['draft', 'ended'], ['active', 'pending'], ['ended', 'paused'],
  ])('when a %s campaign is moved to %s by the owner then 409', async (from, to) => {
    const u = await ready();
    const f = await createFundraiser(db, u.id, { status: from as 'draft' });
    const res = await patch(u, f.id, { status: to });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('INVALID_STATUS_TRANSITION');
  });

  test('when the owner sends rejected then 400 (staff only)', async () => {
    const u = await ready();
    const f = await createFundraiser(db, u.id, { status: 'active' });
    expect((await patch(u, f.id, { status: 'rejected' })).status).toBe(400);
  });

  test('when a live campaign is edited into prohibited content then 403 and unchanged', async () => {
    const u = await ready();
    const f = await createFundraiser(db, u.id, { status: 'active' });
    const res = await patch(u, f.id, { story_html: '<p>Buy cocaine here for the best price in town.</p>' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('PUBLISH_GATE_FAILED');
    expect((await db('fundraisers').where({ id: f.id }).first()).story_html).toBe(f.story_html);
  });

  test('when a live campaign is edited then fields change and status stays', async () => {
    const u = await ready();
    const f = await createFundraiser(db, u.id, { status: 'active' });
    const res = await patch(u, f.id, { summary: 'Updated summary', tags: ['a'] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'active', summary: 'Updated summary', tags: ['a'] });
  });

  test('when someone else, a guest or a bad id patches then 404 / 401 / 400', async () => {
    const u = await ready();
    const f = await createFundraiser(db, u.id, { status: 'active' });
    expect((await patch(await ready(), f.id, { summary: 'x' })).status).toBe(404);
    expect((await request(t.app).patch(`${api}/${f.id}`).send({ summary: 'x' })).status).toBe(401);
    expect((await patch(u, 'not-a-uuid', { summary: 'x' })).status).toBe(400);
    expect((await patch(u, randomUUID(), { summary: 'x' })).status).toBe(404);
    expect((await patch(u, f.id, { goal_amount_cents: -1 })).status).toBe(400);
  });
});

describe('DELETE /fundraisers/:id', () => {
  test('when the owner deletes then deleted_at is set, status unchanged, 404 to others and 200 to the owner', async () => {
    const u = await ready();
    const f = await createFundraiser(db, u.id, { status: 'active' });
    const res = await request(t.app).delete(`${api}/${f.id}`).set(await authHeaders(t, u));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Fundraiser deleted', id: f.id });
    const row = await db('fundraisers').where({ id: f.id }).first();
    expect(row.deleted_at).not.toBeNull();
    expect(row.status).toBe('active');
    expect((await request(t.app).get(`${api}/${f.id}`)).status).toBe(404);
    expect((await request(t.app).get(`${api}/${f.id}`).set(await authHeaders(t, u))).status).toBe(200);
    expect((await request(t.app).delete(`${api}/${f.id}`).set(await authHeaders(t, u))).status).toBe(404);
  });

  test('when funds were collected then 400 and nothing changes', async () => {
    const u = await ready();
    const f = await createFundraiser(db, u.id, { status: 'active', raised_cents: 100 });
    const res = await request(t.app).delete(`${api}/${f.id}`).set(await authHeaders(t, u));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('FUNDS_COLLECTED');
    expect((await db('fundraisers').where({ id: f.id }).first()).deleted_at).toBeNull();
  });

  test('when someone else, a guest or a bad id deletes then 404 / 401 / 400', async () => {
    const f = await createFundraiser(db, (await ready()).id, { status: 'active' });
    expect((await request(t.app).delete(`${api}/${f.id}`).set(await authHeaders(t, await ready()))).status).toBe(404);
    expect((await request(t.app).delete(`${api}/${f.id}`)).status).toBe(401);
    expect((await request(t.app).delete(`${api}/nope`).set(await authHeaders(t, await ready()))).status).toBe(400);
  });
});
