import type { Config } from '../config';
import type { Db } from '../db/knex';

/** The operation failed (a ledger difference, no such job): printed, exit 1. */
export class CliError extends Error {}
/** The command was called wrong (unknown command, flag, role, status; a missing argument): printed with the allowed values, exit 2. */
export class UsageError extends CliError {}

/** The database the command acts on: `directUrl` reaches the server itself, never a pooler. */
export interface Database {
  directUrl: string;
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Progress of a long command, on stderr so stdout keeps only the result. */
export type Progress = (message: string) => void;
export const quiet: Progress = () => undefined;

export interface Command {
  usage: string;
  /** One line for `help`. */
  summary: string;
  /** Checks the arguments before the database is opened; throws UsageError. */
  check?(args: string[]): void;
  /** false: the database is opened as it is, without applying migrations first (restore). */
  migrate?: boolean;
  run(db: Db, args: string[], config: Config, progress?: Progress, database?: Database): Promise<string>;
}

/** Refuses a value outside `allowed`, naming them. */
export function oneOf(what: string, value: string | undefined, allowed: readonly string[]): string {
  if (value === undefined || !allowed.includes(value)) {
    throw new UsageError(`${value === undefined ? `missing ${what}` : `unknown ${what} ${value}`}; allowed: ${allowed.join(', ')}`);
  }
  return value;
}

/** Runs fn, printing "still running (N s)" every few seconds: commands whose steps cannot report themselves. */
export async function withHeartbeat<T>(progress: Progress, what: string, fn: () => Promise<T>, everyMs = 5_000): Promise<T> {
  const t0 = Date.now();
  const timer = setInterval(() => progress(`${what}: still running (${Math.round((Date.now() - t0) / 1000)} s)`), everyMs);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
