import { StateMemo } from '../../src/modules/live/live.state-memo';

/** What a new live stream starts from: one read for every stream opening at once, dropped by the listener's notifications. */
describe('live stream start state', () => {
  function counted() {
    let reads = 0;
    let version = 0;
    return {
      read: async () => {
        reads += 1;
        await new Promise((r) => setTimeout(r, 5));
        return version;
      },
      change: () => (version += 1),
      get reads() {
        return reads;
      },
    };
  }

  test('when a thousand streams of one campaign open at once, then the campaign is read once and each starts from that read', async () => {
    const db = counted();
    const memo = new StateMemo<number>(() => true);
    const got = await Promise.all(Array.from({ length: 1_000 }, () => memo.get('c1', db.read)));
    expect(db.reads).toBe(1);
    expect(new Set(got)).toEqual(new Set([0]));
    await memo.get('c2', db.read);
    expect(db.reads).toBe(2);
  });

  test('when a notification says the campaign changed, then the next stream reads it again and starts from the change', async () => {
    const db = counted();
    const memo = new StateMemo<number>(() => true);
    expect(await memo.get('c1', db.read)).toBe(0);
    db.change();
    memo.drop('c1');
    expect(await memo.get('c1', db.read)).toBe(1);
    db.change();
    memo.clear();
    expect(await memo.get('c1', db.read)).toBe(2);
    expect(db.reads).toBe(3);
  });

  test('when notifications are not arriving, then every stream reads for itself', async () => {
    const db = counted();
    let listening = false;
    const memo = new StateMemo<number>(() => listening);
    await memo.get('c1', db.read);
    await memo.get('c1', db.read);
    expect(db.reads).toBe(2);
    listening = true;
    await memo.get('c1', db.read);
    await memo.get('c1', db.read);
    expect(db.reads).toBe(3);
  });

  test('when a read fails or is older than the safety net, then it is not reused', async () => {
    const memo = new StateMemo<number>(() => true, 50);
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new Error('database away');
    };
    await expect(memo.get('c1', failing)).rejects.toThrow('database away');
    await expect(memo.get('c1', failing)).rejects.toThrow('database away');
    expect(calls).toBe(2);
    const db = counted();
    await memo.get('c2', db.read);
    await new Promise((r) => setTimeout(r, 80));
    await memo.get('c2', db.read);
    expect(db.reads).toBe(2);
  });
});
