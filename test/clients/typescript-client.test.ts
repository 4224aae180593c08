import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { createApiClient, describeError } from '../../clients/typescript/src';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser, sessionCookies } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { serveForSandbox } from '../helpers/listening';
import { registerOrg } from '../helpers/organizations';
import { webhookReceiver } from '../helpers/webhook-receiver';

afterAll(closeDb);

const t = createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
const receiver = webhookReceiver();
const server = serveForSandbox(t);
const guest = () => createApiClient({ baseUrl: server.base() });

describe('the typed TypeScript client (clients/typescript) against a running server', () => {
  test('when the route tables change then the committed types must be regenerated (npm run client:generate)', async () => {
    const root = path.join(__dirname, '../..');
    const run = promisify(execFile);
    const out = await run(process.execPath, ['--import', 'tsx', 'clients/typescript/scripts/generate.ts', '--check'], { cwd: root });
    expect(out.stdout).toContain('up to date');
  }, 240_000);

  test('when a guest lists and reads campaigns then the answers are typed and as served', async () => {
    const owner = await createUser(testDb());
    const f = await createFundraiser(testDb(), owner.id);
    const client = guest();
    const list = await client.GET('/api/v1/fundraisers', { params: { query: { limit: 5 } } });
    expect(list.response.status).toBe(200);
    expect(list.data!.data.some((row) => row.id === f.id)).toBe(true);
    const one = await client.GET('/api/v1/fundraisers/slug/{slug}', { params: { path: { slug: f.slug } } });
    expect(one.data!.data.title).toBe(f.title);
    const missing = await client.GET('/api/v1/fundraisers/slug/{slug}', { params: { path: { slug: 'no-such-campaign-here' } } });
    expect(missing.response.status).toBe(404);
    expect(describeError(missing.error)).toMatch(/Not Found/i);
  });

  test('when a native app signs in with an ID token then it creates a campaign and reads its own notifications', async () => {
    const user = await createUser(testDb(), { private_contact_verified: true });
    const token = (await authHeaders(t, user)).Authorization!.replace(/^Bearer /, '');
    const client = createApiClient({ baseUrl: server.base(), idToken: () => token });
    const created = await client.POST('/api/v1/fundraisers', {
      body: { title: 'Typed client garden', summary: 'Seeds for the school garden', goal_amount_cents: 50_000, currency: 'USD', status: 'draft' },
    });
    expect(created.response.status).toBe(201);
    expect(created.data!.data).toMatchObject({ title: 'Typed client garden', owner_user_id: user.id, status: 'draft' });
    const notes = await client.GET('/api/v1/notifications');
    expect(notes.response.status).toBe(200);
    expect(Array.isArray(notes.data!.notifications)).toBe(true);
    const caps = await client.GET('/api/v1/me/capabilities');
    expect(caps.response.status).toBe(200);
  });

  test('when a script uses an API key made in a browser session then it acts as its owner', async () => {
    const user = await createUser(testDb());
    const browser = createApiClient({ baseUrl: server.base(), headers: { ...(await sessionCookies(t, user)), Origin: 'http://site.test' } });
    const made = await browser.POST('/api/v1/api-keys', { body: { name: 'nightly export' } });
    expect(made.response.status).toBe(201);
    // Null only in an Idempotency-Key replay of the creation.
    const key = made.data!.api_key!;
    const script = createApiClient({ baseUrl: server.base(), apiKey: key });
    const me = await script.GET('/api/v1/me/capabilities');
    expect(me.response.status).toBe(200);
    const keys = await script.GET('/api/v1/api-keys');
    expect(keys.data!.data.map((k) => k.name)).toContain('nightly export');
  });

  test('when a guest gives through checkout then the sandbox settles it and the campaign shows the money', async () => {
    const owner = await createUser(testDb());
    const f = await createFundraiser(testDb(), owner.id);
    const client = guest();
    const gift = await client.POST('/api/v1/donations', {
      body: { fundraiser_id: f.id, amount_cents: 2_000, donor_email: 'typed@example.test', donor_name: 'Typed Donor' },
    });
    expect(gift.response.status).toBe(201);
    const sessionId = new URL(gift.data!.data.url).pathname.split('/').pop()!;
    const paid = await fetch(`${server.base()}/sandbox/checkout/${sessionId}/complete`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    // total_raised_cents is on the slug read only (the spec's field table).
    const read = await client.GET('/api/v1/fundraisers/slug/{slug}', { params: { path: { slug: f.slug } } });
    expect(read.data!.data.total_raised_cents).toBe(2_000);
  });

  test('when an organization is registered then its public page reads through the client', async () => {
    const owner = await createUser(testDb());
    const org = await registerOrg(t, owner);
    const read = await guest().GET('/api/v1/organizations/{idOrSlug}', { params: { path: { idOrSlug: org.slug } } });
    expect(read.response.status).toBe(200);
    expect(read.data!.data.slug).toBe(org.slug);
  });

  test('when an integrator follows the README (API key, idempotent gift, return page, signed webhook) then each step works', async () => {
    const owner = await createUser(testDb());
    const f = await createFundraiser(testDb(), owner.id);
    const browser = createApiClient({ baseUrl: server.base(), headers: { ...(await sessionCookies(t, owner)), Origin: 'http://site.test' } });
    const made = await browser.POST('/api/v1/api-keys', { body: { name: 'partner server' } });
    const api = createApiClient({ baseUrl: server.base(), apiKey: made.data!.api_key! });

    const hookPath = receiver.path('ok');
    const endpoint = await api.POST('/api/v1/webhook-endpoints', { body: { url: receiver.base() + hookPath, events: ['donation.paid'] } });
    expect(endpoint.response.status).toBe(201);
    const shown = await api.GET('/api/v1/webhook-endpoints/{id}', { params: { path: { id: endpoint.data!.data.id } } });
    expect(shown.data!.data).toMatchObject({ id: endpoint.data!.data.id, events: ['donation.paid'], status: 'enabled' });
    expect(shown.data!.data).not.toHaveProperty('secret');

    const key = crypto.randomUUID();
    const body = { fundraiser_id: f.id, amount_cents: 2_500, donor_email: 'ada@example.test', donor_name: 'Ada' };
    const first = await guest().POST('/api/v1/donations', { headers: { 'Idempotency-Key': key }, body });
    const again = await guest().POST('/api/v1/donations', { headers: { 'Idempotency-Key': key }, body });
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data!.data.donation_id).toBe(first.data!.data.donation_id);

    const id = first.data!.data.donation_id;
    const pending = await guest().GET('/api/v1/donations/{id}', { params: { path: { id } } });
    expect(pending.data!.data.status).toBe('pending');
    const sessionId = new URL(first.data!.data.url).pathname.split('/').pop()!;
    await fetch(`${server.base()}/sandbox/checkout/${sessionId}/complete`, { method: 'POST', redirect: 'manual' });
    const paid = await guest().GET('/api/v1/donations/{id}', { params: { path: { id } } });
    expect(paid.data!.data).toMatchObject({ status: 'paid', amount_cents: 2_500, fundraiser: { id: f.id, slug: f.slug } });

    await t.runJobs();
    await t.runJobs();
    const [delivery] = receiver.at(hookPath);
    const event = new Webhook(endpoint.data!.data.secret!).verify(delivery!.body, delivery!.headers) as { type: string; data: { donation_id: string } };
    expect(event).toMatchObject({ type: 'donation.paid', data: { donation_id: id } });
  });
});
