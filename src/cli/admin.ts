import { loadConfigOrExit } from '../config';
import { connectDatabase } from '../db/connect';
import type { Db } from '../db/knex';
import { commands, helpText } from './commands';
import { EXIT, UsageError } from './command';

/**
 * `npm run admin -- <command> [args]`: the result on stdout, progress and errors on stderr;
 * exit 0 on success, 1 when the operation failed, 2 on a wrong call (README "Operating it").
 */
async function main(argv: string[]) {
  const [name, ...args] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${helpText()}\n`);
    process.exit(EXIT.ok);
  }
  const cmd = name ? commands[name] : undefined;
  if (!cmd) {
    process.stderr.write(`${name ? `Unknown command: ${name}\n` : ''}${helpText()}\n`);
    process.exit(EXIT.usage);
  }
  try {
    cmd.check?.(args);
  } catch (err) {
    process.stderr.write(`${name}: ${(err as Error).message}\nUsage: npm run admin -- ${name} ${cmd.usage}\n`);
    process.exit(err instanceof UsageError ? EXIT.usage : EXIT.failed);
  }
  const config = loadConfigOrExit();
  const progress = (m: string) => process.stderr.write(`${m}\n`);
  let handle: { db: Db; directUrl: string; close(): Promise<void> } | null = null;
  try {
    handle = await connectDatabase(config, { statementTimeoutMs: 0, migrate: cmd.migrate });
    const line = await cmd.run(handle.db, args, config, progress, { directUrl: handle.directUrl });
    process.stdout.write(`${line}\n`);
    await handle.close();
    process.exit(EXIT.ok);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    await handle?.close().catch(() => undefined);
    process.exit(err instanceof UsageError ? EXIT.usage : EXIT.failed);
  }
}

void main(process.argv.slice(2));
