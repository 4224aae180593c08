import { loadConfigOrExit } from '../config';
import { connectDatabase } from '../db/connect';
import type { Db } from '../db/knex';
import { commands } from './commands';

/** `npm run admin -- <command> [args]`: one line out, exit 0 on success, non-zero otherwise. */
async function main(argv: string[]) {
  const [name, ...args] = argv;
  const cmd = name ? commands[name] : undefined;
  if (!cmd) {
    const list = Object.entries(commands)
      .map(([n, c]) => `  ${n} ${c.usage}`)
      .join('\n');
    process.stderr.write(`${name ? `Unknown command: ${name}\n` : ''}Usage: npm run admin -- <command>\n${list}\n`);
    process.exit(2);
  }
  const config = loadConfigOrExit();
  let handle: { db: Db; close(): Promise<void> } | null = null;
  try {
    handle = await connectDatabase(config, { statementTimeoutMs: 0 });
    const line = await cmd.run(handle.db, args, config);
    process.stdout.write(`${line}\n`);
    await handle.close();
    process.exit(0);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    await handle?.close().catch(() => undefined);
    process.exit(1);
  }
}

void main(process.argv.slice(2));
