import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { admin } from '../helpers/processes';
import { deliver } from '../helpers/stripe';
import { chargeRefunded, piSucceeded, startGift } from './donations-fixtures';



afterAll(closeDb);

describe('npm run admin -- check-ledger', () => {
  test('when gifts settled and were partly refunded then one clean line and exit 0; when a counter is corrupted then each difference and exit 1', async () => {
    const t = createTestApp();
    const db = testDb();
    const owner = await createUser(db);
    const f = await createFundraiser(db, owner.id);
    const a = await startGift(t, f.id, 2_000, 300);
    const b = await startGift(t, f.id, 1_000);
    await deliver(t, piSucceeded(a));
    await deliver(t, piSucceeded(b));
    await deliver(t, chargeRefunded(b, 400));

    const clean = await admin('check-ledger');
    expect(clean.code).toBe(0);
    expect(clean.stdout.trim().split('\n')).toHaveLength(1);
    expect(clean.stdout).toMatch(/^ledger clean: \d+ groups, \d+ campaigns checked\n$/);
    const groups = Number((await db('ledger_entries').countDistinct({ n: 'group_id' }))[0]!.n);
    expect(clean.stdout).toContain(`${groups} groups`);

    // An operator's (or a bug's) direct write: the counters no longer match the ledger or the gifts.
    await db('fundraiser_counter_shards').insert({ fundraiser_id: f.id, shard: 99, raised_cents: 9_999 - 2_600, donation_count: 5 });
    const dirty = await admin('check-ledger');
    expect(dirty.code).toBe(1);
    expect(dirty.stdout).toBe('');
    expect(dirty.stderr).toContain(`fundraiser ${f.id}: raised_cents 9999, ledger says 2600`);
    expect(dirty.stderr).toContain(`fundraiser ${f.id}: donation_count 7, donations say 2`);

    await db('fundraiser_counter_shards').where({ fundraiser_id: f.id, shard: 99 }).delete();
    expect((await admin('check-ledger')).code).toBe(0);
  }, 240_000);
});
