import type { Knex } from 'knex';
import { queryRows } from '../../src/db/knex';
import { rawTransaction } from '../../src/db/raw-transaction';
import { closeDb, testDb } from '../helpers/app';
import { insideOpenTransaction, trackTransactions } from '../helpers/processor-guard';

/**
 * The processor webhook's transaction is begun and ended on the pg connection, not by knex
 * (src/db/raw-transaction.ts): what runs in it must see a knex transaction in every respect the
 * code relies on: one connection, one commit or one rollback, builders and queryRows alike,
 * savepoints, refusal once ended, executionPromise.
 */

const db = () => testDb();
const values = async () => (await db()('raw_trx_probe').orderBy('v').pluck('v')) as string[];
const pool = () => (db().client as { pool: { numUsed(): number; numFree(): number } }).pool;

beforeAll(async () => {
  await db().raw('create table raw_trx_probe (v text primary key)');
});
afterEach(async () => {
  await db()('raw_trx_probe').del();
});
afterAll(async () => {
  await db().raw('drop table raw_trx_probe');
  await closeDb();
});

describe('raw transactions', () => {
  it('when queryRows, builders and raw run in one, then they share its connection and transaction and commit together; executionPromise resolves after the commit; the connection goes back to the pool', async () => {
    let trxSeen: Knex.Transaction | undefined;
    const value = await rawTransaction(db(), async (trx) => {
      trxSeen = trx;
      expect(trx.isTransaction).toBe(true);
      expect(trx.isCompleted()).toBe(false);
      const a = await queryRows<{ pid: number; x: string; iso: string }>(trx, "select pg_backend_pid() as pid, txid_current()::text as x, current_setting('transaction_isolation') as iso", []);
      const b = (await trx.raw('select pg_backend_pid() as pid, txid_current()::text as x')).rows;
      expect(b[0]).toEqual({ pid: a[0]!.pid, x: a[0]!.x });
      expect(a[0]!.iso).toBe('read committed');
      await queryRows(trx, 'insert into raw_trx_probe (v) values (?)', ['by-query-rows']);
      await trx('raw_trx_probe').insert({ v: 'by-builder' });
      await trx.insert({ v: 'by-root-method' }).into('raw_trx_probe');
      const now = await trx('raw_trx_probe').where({ v: 'by-builder' }).update({ v: trx.raw('? || ?', ['by-builder', '-updated']) });
      expect(now).toBe(1);
      // Another connection sees none of it before the commit.
      expect(await values()).toEqual([]);
      return 'done';
    });
    expect(value).toBe('done');
    expect(await values()).toEqual(['by-builder-updated', 'by-query-rows', 'by-root-method']);
    expect(trxSeen!.isCompleted()).toBe(true);
    await expect(trxSeen!.executionPromise).resolves.toBe('done');
    expect(pool().numUsed()).toBe(0);
  });

  it('when its function throws, then everything it wrote is rolled back, the error comes out as it was, executionPromise rejects and the ended transaction refuses statements', async () => {
    const boom = new Error('boom');
    let trxSeen: Knex.Transaction | undefined;
    let after: Promise<unknown> = Promise.resolve();
    await expect(
      rawTransaction(db(), async (trx) => {
        trxSeen = trx;
        after = trx.executionPromise.then(() => 'committed', () => 'rolled back');
        await queryRows(trx, 'insert into raw_trx_probe (v) values (?)', ['a']);
        await trx('raw_trx_probe').insert({ v: 'b' });
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await values()).toEqual([]);
    await expect(after).resolves.toBe('rolled back');
    await expect(queryRows(trxSeen!, 'select 1', [])).rejects.toThrow(/already complete/);
    await expect(trxSeen!('raw_trx_probe').insert({ v: 'late' })).rejects.toThrow(/already complete/);
    expect(await values()).toEqual([]);
    expect(pool().numUsed()).toBe(0);
  });

  it('when a statement fails inside, then the transaction is aborted as in knex and the whole of it rolls back', async () => {
    await queryRows(db(), 'insert into raw_trx_probe (v) values (?)', ['taken']);
    await expect(
      rawTransaction(db(), async (trx) => {
        await queryRows(trx, 'insert into raw_trx_probe (v) values (?)', ['fresh']);
        await queryRows(trx, 'insert into raw_trx_probe (v) values (?)', ['taken']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await values()).toEqual(['taken']);
  });

  it('when it nests a transaction, then the inner one is a savepoint: its failure rolls back only its own writes', async () => {
    await rawTransaction(db(), async (trx) => {
      await queryRows(trx, 'insert into raw_trx_probe (v) values (?)', ['outer']);
      await expect(
        trx.transaction(async (inner) => {
          await inner('raw_trx_probe').insert({ v: 'inner' });
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
      await trx.transaction(async (inner) => {
        await inner('raw_trx_probe').insert({ v: 'inner-kept' });
      });
    });
    expect(await values()).toEqual(['inner-kept', 'outer']);
  });

  it('when its function tries to commit or roll back itself, then that is refused and the transaction still ends with the function', async () => {
    await expect(
      rawTransaction(db(), async (trx) => {
        await queryRows(trx, 'insert into raw_trx_probe (v) values (?)', ['x']);
        await trx.commit();
      }),
    ).rejects.toThrow(/ends when its function settles/);
    expect(await values()).toEqual([]);
  });

  it('when its connection dies inside, then the error comes out, the dead connection is not lent again and the next transaction runs', async () => {
    await expect(
      rawTransaction(db(), async (trx) => {
        await queryRows(trx, 'select pg_terminate_backend(pg_backend_pid())', []);
      }),
    ).rejects.toThrow();
    expect(pool().numUsed()).toBe(0);
    const pid = await rawTransaction(db(), async (trx) => (await queryRows<{ pid: number }>(trx, 'select pg_backend_pid() as pid', []))[0]!.pid);
    expect(pid).toBeGreaterThan(0);
  });

  it('when someone listens to the query event, then BEGIN, every statement and COMMIT are told', async () => {
    const seen: string[] = [];
    const listen = (q: { sql: string }) => seen.push(q.sql);
    db().on('query', listen);
    try {
      await rawTransaction(db(), async (trx) => {
        await queryRows(trx, 'select ?::int as n', [1]);
        await trx('raw_trx_probe').select('v');
      });
    } finally {
      db().off('query', listen);
    }
    expect(seen).toEqual(['BEGIN;', 'select $1::int as n', 'select "v" from "raw_trx_probe"', 'COMMIT;']);
  });

  it('when the tests track transactions (the guard against processor calls inside one), then code running in a raw transaction is seen inside an open one until it ends', async () => {
    trackTransactions(db());
    let later: Promise<boolean> = Promise.resolve(true);
    await rawTransaction(db(), async (trx) => {
      expect(insideOpenTransaction()).toBe(true);
      later = trx.executionPromise.then(() => insideOpenTransaction());
    });
    expect(insideOpenTransaction()).toBe(false);
    await expect(later).resolves.toBe(false);
  });
});
