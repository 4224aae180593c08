import { primaryLsn, parseLsn } from '../../src/db/replica-probe';
import { closeDb, testDb } from '../helpers/app';

afterAll(() => closeDb());

// A read cache fence and read-your-writes take the primary's position after a commit, and a
// standby counts as new enough once it has replayed past it. With synchronous_commit off (on a
// whole server, or one transaction), a commit returns before its WAL is written: the write
// position (pg_current_wal_lsn) can still be before the commit record, so a standby at that
// position has not replayed the change. Seen in the cluster test (its Postgres runs with
// synchronous_commit off): a process cached the old title for the cache's full 30 s.
test("the primary's position is at or past everything in the WAL before it was asked, even a commit made asynchronously", async () => {
  const db = testDb();
  let behind = 0;
  for (let i = 0; i < 40; i += 1) {
    const end = await db.transaction(async (trx) => {
      await trx.raw('set local synchronous_commit = off');
      await trx.raw('select txid_current()'); // an xid: the commit writes a commit record
      return null;
    }).then(async () => parseLsn((await db.raw('select pg_current_wal_insert_lsn()::text as lsn')).rows[0].lsn)!);
    if ((await primaryLsn(db)) < end) behind += 1;
  }
  expect(behind).toBe(0);
});
