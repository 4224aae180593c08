import { collected } from '../../src/modules';
import { checkLedger } from '../../src/modules/integrity';
import { eraseNow } from '../../src/modules/privacy';
import { exportDocument } from '../../src/modules/privacy/privacy.exports';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { serveForSandbox } from '../helpers/listening';
import { advance, DAY, giftRow, giftsOf, pay, startMonthly } from './recurring-gifts-fixtures';

/** Monthly gifts in privacy requests: exported with the account's data; an erasure stops them first. */

const t = createTestApp();
serveForSandbox(t);
afterAll(closeDb);

test('when a monthly donor exports and then is erased, then the export lists the monthly gift, and the erasure cancels it (at the processor too) before the donor becomes anonymous', async () => {
  const owner = await createUser(testDb());
  const donor = await createUser(testDb(), { name: 'Erin Erased' });
  const f = await createFundraiser(testDb(), owner.id);
  const s = await startMonthly(t, { fundraiser_id: f.id, amount_cents: 1_000 }, await authHeaders(t, donor));
  await pay(t, s.url);

  const doc = await exportDocument(t.ctx, collected.personalData, { userId: donor.id });
  expect(doc.monthly_gifts).toEqual([expect.objectContaining({ id: s.recurring_gift_id, fundraiser_id: f.id, amount_cents: 1000, status: 'active', interval: 'month' })]);
  expect((doc.gifts as Array<{ recurring_gift_id: string }>).map((g) => g.recurring_gift_id)).toEqual([s.recurring_gift_id]);

  expect(await eraseNow(t.ctx, collected.personalData, donor.id)).toBe('done');
  expect(await giftRow(t, s.recurring_gift_id)).toMatchObject({ status: 'canceled', canceled_by: 'erasure', donor_email: null, donor_name: null, anonymous: true });
  await t.runJobs();
  const g = await giftRow(t, s.recurring_gift_id);
  expect(g.synced_version).toBe(g.sync_version);
  const sub = await t.ctx.db('sandbox_objects').where({ id: g.processor_subscription_id }).first('data');
  expect(sub.data.status).toBe('canceled');
  expect((await t.ctx.db('fundraisers').where({ id: f.id }).first()).recurring_donor_count).toBe(0);
  // Nothing more is charged to an erased account; the gift already paid stays, anonymous.
  await advance(t, 31 * DAY);
  const gifts = await giftsOf(t, s.recurring_gift_id);
  expect(gifts.map((d) => [d.status, d.donor_email, d.anonymous])).toEqual([['paid', null, true]]);
  expect(await checkLedger(t.ctx.db)).toEqual([]);
});
