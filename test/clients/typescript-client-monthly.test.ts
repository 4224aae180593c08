import { createApiClient } from '../../clients/typescript/src';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { serveForSandbox } from '../helpers/listening';

/** The typed client's monthly-gift operations against a running server and its sandbox processor. */

afterAll(closeDb);

const t = createTestApp();
const server = serveForSandbox(t);
/** The sandbox's own controls are not part of the client (they exist only without Stripe): plain fetch. */
const sandbox = (path: string, body?: unknown) =>
  fetch(`${server.base()}/sandbox${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': body ? 'application/json' : 'application/x-www-form-urlencoded' }, body: body ? JSON.stringify(body) : '' });

test('when a donor starts a monthly gift with the typed client, pays it, and the sandbox clock moves two months, then the client lists it, changes it, reads its gifts and cancels it', async () => {
  const owner = await createUser(testDb());
  const donor = await createUser(testDb());
  const f = await createFundraiser(testDb(), owner.id);
  const token = (await authHeaders(t, donor)).Authorization!.replace(/^Bearer /, '');
  const api = createApiClient({ baseUrl: server.base(), idToken: () => token });

  const started = await api.POST('/api/v1/donations', { body: { fundraiser_id: f.id, amount_cents: 1_500, tip_cents: 100, interval: 'month' } });
  expect(started.response.status).toBe(201);
  const giftId = started.data!.data.recurring_gift_id!;
  const paid = await sandbox(`/checkout/${new URL(started.data!.data.url).pathname.split('/').pop()}/complete`);
  expect(paid.status).toBe(303);
  const moved = await sandbox('/clock/advance', { seconds: 62 * 86_400 });
  expect(((await moved.json()) as { data: { renewals: { charged: number } } }).data.renewals.charged).toBeGreaterThanOrEqual(2);

  const listed = await api.GET('/api/v1/me/recurring-gifts');
  expect(listed.data!.data).toEqual([expect.objectContaining({ id: giftId, status: 'active', amount_cents: 1_500, tip_cents: 100, interval: 'month' })]);
  const history = await api.GET('/api/v1/me/donations', { params: { query: { limit: 10 } } });
  expect(history.data!.data.filter((d) => d.recurring_gift_id === giftId).length).toBeGreaterThanOrEqual(3);
  const outcome = await api.GET('/api/v1/donations/{id}', { params: { path: { id: started.data!.data.donation_id } } });
  expect(outcome.data!.data.recurring_gift_id).toBe(giftId);
  const stats = await api.GET('/api/v1/fundraisers/{id}/stats', { params: { path: { id: f.id } } });
  expect(stats.data!.data.recurring_donor_count).toBe(1);

  const changed = await api.PATCH('/api/v1/me/recurring-gifts/{id}', { params: { path: { id: giftId } }, body: { amount_cents: 2_500, paused: true } });
  expect(changed.data!.data).toMatchObject({ amount_cents: 2_500, status: 'paused' });
  const canceled = await api.DELETE('/api/v1/me/recurring-gifts/{id}', { params: { path: { id: giftId } }, body: { reason: 'Budget' } });
  expect(canceled.data!.data.status).toBe('canceled');

  // A guest's operations take the signed link's token; a wrong one is a typed 404.
  const guest = createApiClient({ baseUrl: server.base() });
  const denied = await guest.GET('/api/v1/recurring-gifts/{id}', { params: { path: { id: giftId }, query: { token: 'not-a-valid-token' } } });
  expect(denied.response.status).toBe(404);
});
