import { spawnSync } from 'node:child_process';
import { missingPackages, startCluster } from './cluster/topology';
import { hasTerminal } from './cluster/util';

/**
 * `npm run cluster`: the local production topology (docs/operations/cluster.md) on this machine. Missing
 * Debian packages are installed with apt-get when running as root, else named. Prints every
 * address; Ctrl-C (or SIGTERM) stops all of it and removes its temporary folder.
 */
async function main(): Promise<void> {
  let missing = missingPackages();
  if (missing.length && process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0) {
    console.log(`installing ${missing.join(' ')} (apt-get)`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const install = () => spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', 'install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env }).status === 0;
    if (!install()) {
      spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
      install();
    }
    missing = missingPackages();
  }
  if (missing.length) {
    console.error(`npm run cluster needs Debian packages: apt-get install -y ${missing.join(' ')} (as root)`);
    process.exit(1);
  }
  const int = (name: string, dflt: number) => {
    const v = process.env[name];
    if (v === undefined || v === '') return dflt;
    if (!/^\d+$/.test(v)) {
      console.error(`${name} must be a whole number`);
      process.exit(1);
    }
    return Number(v);
  };
  const cluster = await startCluster({
    api: Math.max(1, int('CLUSTER_API', 3)),
    workers: int('CLUSTER_WORKERS', 2),
    port: int('CLUSTER_PORT', 8080),
    appOutput: 'inherit',
    log: (line) => console.log(`cluster: ${line}`),
  });
  console.log('\nThe cluster is up:');
  for (const [name, addr] of Object.entries(cluster.addresses)) console.log(`  ${name.padEnd(42)} ${addr}`);
  console.log(`\nkill -HUP ${process.pid} restarts the API processes one at a time; Ctrl-C (or closing the terminal) stops all of it.`);
  let stopping = false;
  const startedOnTerminal = hasTerminal();
  process.on('SIGHUP', () => {
    if (stopping) return;
    // The terminal was closed (its SIGHUP): stop, as Ctrl-C does, rather than roll a cluster nobody sees.
    if (startedOnTerminal && !hasTerminal()) {
      // Nothing reads what is printed now: a write to the closed terminal must not end the stop midway.
      for (const out of [process.stdout, process.stderr]) out.on('error', () => undefined);
      return stop();
    }
    console.log('rolling restart of the API processes...');
    cluster.rollingRestart().then(
      () => console.log('rolling restart done'),
      (err: Error) => console.error(`rolling restart failed: ${err.message}`),
    );
  });
  function stop() {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping the cluster...');
    void cluster.stop().then(() => process.exit(0));
  }
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(`npm run cluster failed: ${(err as Error).message}`);
  process.exit(1);
});
