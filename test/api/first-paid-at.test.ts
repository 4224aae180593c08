import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver } from '../helpers/stripe';
import { down, up } from '../../migrations/20261124180000_add_first_paid_at';
import { chargeRefunded, piSucceeded, startGift } from './donations-fixtures';

// fundraisers.first_paid_at answers "has this campaign collected money" without asking
// donations: stamped with the counters when a gift is paid, never cleared by a refund.
let t: TestApp;
let ownerId: string;

beforeAll(async () => {
  t = createTestApp();
  ownerId = (await createUser(testDb())).id;
});
afterAll(closeDb);

const firstPaidAt = async (id: string) => (await testDb()('fundraisers').where({ id }).first('first_paid_at')).first_paid_at as Date | null;

test('when a gift is paid and then fully refunded, then first_paid_at is stamped once and stays', async () => {
  const f = await createFundraiser(testDb(), ownerId);
  expect(await firstPaidAt(f.id)).toBeNull();
  const g = await startGift(t, f.id, 1_000);
  expect(await firstPaidAt(f.id)).toBeNull();
  await deliver(t, piSucceeded(g));
  const stamped = await firstPaidAt(f.id);
  expect(stamped).toBeInstanceOf(Date);
  await deliver(t, chargeRefunded(g, 1_000));
  expect(await firstPaidAt(f.id)).toEqual(stamped);
  // A second paid gift does not move it.
  await deliver(t, piSucceeded(await startGift(t, f.id, 500)));
  expect(await firstPaidAt(f.id)).toEqual(stamped);
});

test('when the migration runs over existing gifts, then each campaign gets its earliest paid gift and others stay null', async () => {
  const paid = await createFundraiser(testDb(), ownerId);
  const unpaid = await createFundraiser(testDb(), ownerId);
  await deliver(t, piSucceeded(await startGift(t, paid.id, 1_000)));
  await startGift(t, unpaid.id, 1_000);
  const earliest = new Date('2026-01-02T03:04:05Z');
  await testDb()('donations').where({ fundraiser_id: paid.id }).update({ paid_at: earliest });
  // A later migration's view (fundraiser_counters) reads the column: set it aside while the column is dropped and added again.
  const view = (await testDb().raw(`select pg_get_viewdef('fundraiser_counters'::regclass, true) as d`)).rows[0].d as string;
  await testDb().raw('drop view fundraiser_counters');
  await down(testDb());
  await up(testDb());
  await testDb().raw(`create view fundraiser_counters as ${view}`);
  expect(await firstPaidAt(paid.id)).toEqual(earliest);
  expect(await firstPaidAt(unpaid.id)).toBeNull();
});
