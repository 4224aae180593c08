import type { Config } from '../config';
import type { Db } from '../db/knex';

/** A usage problem: the CLI prints the message and exits non-zero. */
export class CliError extends Error {}

export interface Command {
  usage: string;
  run(db: Db, args: string[], config: Config): Promise<string>;
}
