/**
 * Every bench states its time budget and keeps it: `npm run bench` once sat
 * idle for minutes after its work (a LISTEN connection kept the process alive), and nothing said
 * so. `runBench` prints the budget at start, tracks what the bench is doing (`step`), and on
 * overrun prints that step and exits 1. When the work ends it exits itself (0, or 1 on error),
 * so a handle someone forgot to close cannot keep a finished bench waiting.
 *
 * BENCH_BUDGET_S overrides a bench's default budget (a bigger data set, a slower machine).
 */
export interface BenchRun {
  /** Names what the bench is doing now: an overrun reports it. */
  step(what: string): void;
}

export interface DeadlineDeps {
  write(line: string): void;
  exit(code: number): void;
  now(): number;
  setTimer(fn: () => void, ms: number): { unref?(): void };
  clearTimer(t: unknown): void;
}

const realDeps: DeadlineDeps = {
  write: (line) => process.stderr.write(line),
  exit: (code) => process.exit(code),
  now: () => Date.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (t) => clearTimeout(t as NodeJS.Timeout),
};

/** The budget in seconds: BENCH_BUDGET_S when set (a positive number), else the bench's default. */
export function budgetSeconds(defaultS: number, env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.BENCH_BUDGET_S);
  return env.BENCH_BUDGET_S && Number.isFinite(v) && v > 0 ? v : defaultS;
}

export function runBench(
  name: string,
  defaultBudgetS: number,
  work: (run: BenchRun) => Promise<unknown>,
  deps: DeadlineDeps = realDeps,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const budget = budgetSeconds(defaultBudgetS, env);
  const started = deps.now();
  let doing = 'starting';
  let since = started;
  let done = false;
  const elapsed = (from: number) => ((deps.now() - from) / 1000).toFixed(1);
  deps.write(`[${name}] time budget ${budget} s (BENCH_BUDGET_S overrides); stops with exit 1 past it\n`);
  const timer = deps.setTimer(() => {
    if (done) return;
    done = true;
    deps.write(`[${name}] over its time budget of ${budget} s: was ${doing} (for ${elapsed(since)} s); stopping\n`);
    deps.exit(1);
  }, budget * 1000);
  const run: BenchRun = {
    step(what) {
      doing = what;
      since = deps.now();
    },
  };
  return work(run).then(
    () => {
      if (done) return;
      done = true;
      deps.clearTimer(timer);
      deps.write(`[${name}] done in ${elapsed(started)} s (budget ${budget} s)\n`);
      deps.exit(0);
    },
    (err: unknown) => {
      if (done) return;
      done = true;
      deps.clearTimer(timer);
      deps.write(`[${name}] failed while ${doing}: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
      deps.exit(1);
    },
  );
}
