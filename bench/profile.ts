/**
 * CPU profile of one API read under load: starts the compare bench's API server
 * (bench/compare-servers.ts, as `npm start` runs it), drives one read with autocannon, records V8's
 * CPU profile (the profiler `node --cpu-prof` uses, started after the warm-up through the
 * inspector) over the measured slice only, and prints where the server's CPU went per request:
 * by package/area and the top functions by self time.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/profile.ts [signed|guest|id-signed|list]
 *   PROFILE_SECONDS=10 PROFILE_CONNECTIONS=32 BENCH_DB=cf_bench
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { benchDatabaseUrl } from './db';
import { runLoad } from './load-gen';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.PROFILE_CONNECTIONS ?? 32);
const log = (m: string) => process.stdout.write(`${m}\n`);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame belongs: a package, a project file, node internals, or V8's pseudo frames. */
function areaOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url.replace(/^node:internal\/(\w+).*/, 'node:$1');
  const src = /\/(src|bench)\/(.*)$/.exec(url);
  return src ? `${src[1]}/${src[2]}` : url;
}

export function summarise(p: Profile, requests: number, top = 25): string[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  // The profiler's own stop call (node:inspector and what it dispatches) is not the server's work.
  const excluded = new Set<number>();
  const mark = (id: number, inside: boolean) => {
    const n = byId.get(id)!;
    const now = inside || n.callFrame.url === 'node:inspector';
    if (now) excluded.add(id);
    for (const c of n.children ?? []) mark(c, now);
  };
  mark(p.nodes[0]!.id, false);
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    if (excluded.has(id)) continue;
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const key = `${functionName || '(anonymous)'} ${area}:${lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  const per = (us: number) => (us / requests).toFixed(1);
  const lines = [
    `busy ${(total / 1000).toFixed(0)} ms over ${requests} requests = **${per(total)} us/request** (idle ${(idle / 1000).toFixed(0)} ms)`,
    '',
    '| area (self time) | us/request | share |',
    '|---|---|---|',
    ...[...areas].sort((a, b) => b[1] - a[1]).slice(0, 18).map(([k, v]) => `| ${k} | ${per(v)} | ${((v / total) * 100).toFixed(1)}% |`),
    '',
    '| function (self time) | us/request | share |',
    '|---|---|---|',
    ...[...fns].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) => `| \`${k}\` | ${per(v)} | ${((v / total) * 100).toFixed(1)}% |`),
  ];
  return lines;
}

async function main() {
  const which = process.argv[2] ?? 'signed';
  const databaseUrl = await benchDatabaseUrl();
  if (!databaseUrl) throw new Error('set DATABASE_URL');
  const c = new Client({ connectionString: databaseUrl });
  await c.connect();
  const { rows } = await c.query(`select id, slug from fundraisers where slug like 'bench-%' and status = 'active'
    and visibility = 'public' and deleted_at is null order by random() limit 500`);
  await c.end();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-prof-'));
  const file = path.join(dir, `${which}.cpuprofile`);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'compare.ts'), 'app'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PROFILE_OUT: file },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const seen = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = re.exec(out);
        if (m) {
          child.stdout!.off('data', onData);
          resolve(m);
        }
      };
      const onData = (b: Buffer) => {
        out += b.toString();
        check();
      };
      child.stdout!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
      check();
    });
  const port = Number((await seen(/port=(\d+)/))[1]);
  const token = /token=(\S+)/.exec(out)?.[1] ?? '';
  const signed = which.includes('signed');
  const paths =
    which === 'list'
      ? [0, 0, 0, 20, 40].map((o) => `/api/v1/fundraisers?offset=${o}`)
      : which.startsWith('id')
        ? rows.map((r) => `/api/v1/fundraisers/${r.id}`)
        : rows.map((r) => `/api/v1/fundraisers/slug/${r.slug}`);
  const headers = signed ? { Authorization: `Bearer ${token}` } : undefined;
  const base = `http://127.0.0.1:${port}`;
  await runLoad(base, paths, { connections: CONNECTIONS, seconds: 3, headers });
  child.kill('SIGUSR2');
  await new Promise((r) => setTimeout(r, 200));
  const r = await runLoad(base, paths, { connections: CONNECTIONS, seconds: SECONDS, headers });
  child.kill('SIGHUP');
  await seen(/profile-written/);
  child.kill('SIGTERM');
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  log(`${which}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms over ${SECONDS} s, load average ${os.loadavg()[0]!.toFixed(1)} (profile: ${file})`);
  for (const l of summarise(profile, r.requests)) log(l);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`profile failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
