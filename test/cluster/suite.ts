import { spawn } from 'node:child_process';
import { missingPackages, type Cluster } from '../../scripts/cluster/topology';
import { outputOf, ROOT } from '../helpers/processes';

/**
 * The `describe` of a cluster test file: `describe.skip` when Debian's packages the topology needs
 * are missing, except under CI=true or REQUIRE_CLUSTER=1, where a missing package fails the file
 * instead of hiding it. Also gives the file the cluster's test budget: a whole cluster under load on
 * a busy machine, so generous, and never a throughput threshold.
 */
export function clusterSuite(timeoutMs = 300_000): jest.Describe {
  const missing = missingPackages();
  if (missing.length && (process.env.CI === 'true' || process.env.REQUIRE_CLUSTER === '1')) {
    throw new Error(`the cluster tests need: apt-get install -y ${missing.join(' ')} (CI=true / REQUIRE_CLUSTER=1 do not skip them)`);
  }
  jest.setTimeout(timeoutMs);
  if (missing.length) console.warn(`cluster tests skipped: apt-get install -y ${missing.join(' ')}`);
  return missing.length ? describe.skip : describe;
}

/** `npm run admin -- <args>` against the cluster's database, as an operator runs it. */
export async function clusterAdmin(cluster: Cluster, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const r = await outputOf(spawn('npm', ['run', '-s', 'admin', '--', ...args], { cwd: ROOT, env: { ...process.env, ...cluster.env, LOG_LEVEL: 'warn' } }));
  return { code: r.code, out: r.stdout.trim(), err: r.stderr.trim() };
}
