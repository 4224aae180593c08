import { budgetSeconds, runBench, type DeadlineDeps } from '../../bench/deadline';

/** A fake clock and exit: the deadline helper is checked without waiting for real time. */
function fakeDeps() {
  const lines: string[] = [];
  const exits: number[] = [];
  let now = 0;
  let timer: { fn: () => void; at: number } | null = null;
  const deps: DeadlineDeps = {
    write: (l) => void lines.push(l),
    exit: (c) => void exits.push(c),
    now: () => now,
    setTimer: (fn, ms) => ((timer = { fn, at: now + ms }), {}),
    clearTimer: () => void (timer = null),
  };
  const advance = (ms: number) => {
    now += ms;
    if (timer && now >= timer.at) {
      const t = timer;
      timer = null;
      t.fn();
    }
  };
  return { deps, lines, exits, advance, pending: () => timer !== null };
}

describe('bench deadline (runBench)', () => {
  test('when a bench starts then it prints its budget', async () => {
    const f = fakeDeps();
    await runBench('x', 60, async () => undefined, f.deps, {});
    expect(f.lines[0]).toMatch(/^\[x\] time budget 60 s/);
  });

  test('when the work never ends then at the budget it prints what it was doing and exits 1', () => {
    const f = fakeDeps();
    void runBench('bench', 30, (run) => {
      run.step('measuring list q');
      return new Promise(() => undefined); // an awaited promise nobody resolves
    }, f.deps, {});
    f.advance(29_999);
    expect(f.exits).toEqual([]);
    f.advance(1);
    expect(f.exits).toEqual([1]);
    expect(f.lines.at(-1)).toMatch(/over its time budget of 30 s: was measuring list q \(for 30\.0 s\)/);
  });

  test('when the work finishes then it exits 0 at once, stray handles or not, and the timer is cleared', async () => {
    const f = fakeDeps();
    await runBench('bench', 30, async () => f.advance(1_500), f.deps, {});
    expect(f.exits).toEqual([0]);
    expect(f.pending()).toBe(false);
    expect(f.lines.at(-1)).toMatch(/done in 1\.5 s/);
  });

  test('when the work fails then it says while doing what and exits 1', async () => {
    const f = fakeDeps();
    await runBench('bench', 30, async (run) => {
      run.step('seeding');
      throw new Error('disk full');
    }, f.deps, {});
    expect(f.exits).toEqual([1]);
    expect(f.lines.at(-1)).toMatch(/failed while seeding: Error: disk full/);
  });

  test('when BENCH_BUDGET_S is a positive number then it is the budget, else the default', () => {
    expect(budgetSeconds(60, { BENCH_BUDGET_S: '5' })).toBe(5);
    expect(budgetSeconds(60, { BENCH_BUDGET_S: 'soon' })).toBe(60);
    expect(budgetSeconds(60, { BENCH_BUDGET_S: '0' })).toBe(60);
    expect(budgetSeconds(60, {})).toBe(60);
  });
});
