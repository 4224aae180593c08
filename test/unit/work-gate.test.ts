import { GateRefused, WorkGate } from '../../src/db/gate';

describe('WorkGate', () => {
  afterEach(() => jest.useRealTimers());

  test('when the slots are taken, then callers queue first come first served and a full queue refuses at once', async () => {
    const gate = new WorkGate(1, 2, 60_000);
    const first = await gate.acquire();
    const order: string[] = [];
    const a = gate.acquire().then((release) => {
      order.push('a');
      return release;
    });
    const b = gate.acquire().then((release) => {
      order.push('b');
      return release;
    });
    await expect(gate.acquire()).rejects.toEqual(new GateRefused('full'));
    expect([gate.active, gate.queued]).toEqual([1, 2]);
    first();
    const releaseA = await a;
    expect(order).toEqual(['a']);
    releaseA();
    releaseA(); // a second release of the same slot changes nothing
    (await b)();
    expect(order).toEqual(['a', 'b']);
    expect([gate.active, gate.queued]).toEqual([0, 0]);
  });

  test('when a queued caller waits past the queue timeout, then it is refused and leaves the queue', async () => {
    jest.useFakeTimers();
    const gate = new WorkGate(1, 5, 1000);
    const held = await gate.acquire();
    const waiting = gate.acquire();
    jest.advanceTimersByTime(1000);
    await expect(waiting).rejects.toEqual(new GateRefused('timeout'));
    expect(gate.queued).toBe(0);
    held();
    expect(gate.active).toBe(0);
  });

  test('when work throws, then its slot is released', async () => {
    const gate = new WorkGate(1, 0, 1000);
    await expect(gate.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(gate.active).toBe(0);
    await expect(gate.run(async () => 7)).resolves.toBe(7);
  });
});
