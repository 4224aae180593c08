import fs from 'node:fs';

/** CPU time (user + system, seconds) of processes, from /proc: where a bench's cores went. */

const TICK = 100; // USER_HZ: Linux reports these times in 1/100 s

function statTimes(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is the first; utime and stime the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICK;
  } catch {
    return 0;
  }
}

/** Every process whose command name is `comm` (all of Postgres's backends, say). */
function pidsNamed(comm: string): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm;
    } catch {
      return false;
    }
  });
}

/** Busy time of the whole machine, seconds summed over its cores. */
function machineBusy(): number {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
  return (cpu.reduce((a, b) => a + b, 0) - cpu[3]! - (cpu[4] ?? 0)) / TICK;
}

export type CpuGroups = Record<string, number[] | string>;
/** Per group, each process's CPU seconds so far; `machine` holds the whole machine's busy time under pid 0. */
export type CpuSnapshot = Record<string, Map<number, number>>;

/** A snapshot of each group's processes (a string names them by command name, looked up at each snapshot). */
export function cpuSnapshot(groups: CpuGroups): CpuSnapshot {
  const out: CpuSnapshot = { machine: new Map([[0, machineBusy()]]) };
  for (const [name, who] of Object.entries(groups)) {
    out[name] = new Map((typeof who === 'string' ? pidsNamed(who) : who).map((pid) => [pid, statTimes(pid)]));
  }
  return out;
}

/**
 * Cores each group used between two snapshots taken `seconds` apart. A process that ended
 * meanwhile is not counted (its time is gone with it); one that started counts from zero.
 */
export function coresUsed(before: CpuSnapshot, after: CpuSnapshot, seconds: number): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([k, pids]) => {
    let used = 0;
    for (const [pid, t] of pids) used += t - (before[k]?.get(pid) ?? 0);
    return [k, Math.round((used / seconds) * 100) / 100];
  }));
}
