/**
 * Memory bench: the API as production runs it (`npm start`: compiled JavaScript, its own
 * process) on the bench database (100k campaigns, seeded by bench/seed.ts when missing), walking
 * many campaigns' share images (og, poster, story) and many distinct list queries, sampling the
 * server process's resident memory (RSS, render threads included) as it goes. The goal: flat after
 * warm-up and under 400 MB, because every in-process cache is bounded (CACHE_MAX_ENTRIES,
 * CACHE_MAX_MB) and render threads are retired (RENDERS_PER_THREAD).
 *
 *   DATABASE_URL=postgres://... npm run bench:memory
 *   BENCH_CAMPAIGNS=100000 BENCH_MEMORY_IMAGES=3000 BENCH_MEMORY_LISTS=20000 BENCH_CONCURRENCY=4
 *
 * Writes bench/results/memory.md. Runs without REDIS_URL: the in-process cache is the one under test.
 * Budget: 30 minutes (BENCH_BUDGET_S), seeding included.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config';
import { openBenchDatabase } from './db';
import { runBench } from './deadline';
import { writeLatestRun } from './results';

const N = Number(process.env.BENCH_CAMPAIGNS ?? 100_000);
const IMAGES = Number(process.env.BENCH_MEMORY_IMAGES ?? 3_000);
const LISTS = Number(process.env.BENCH_MEMORY_LISTS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const log = (m: string) => process.stdout.write(`[memory] ${m}\n`);

let ip = 0;
const nextIp = () => `10.${(++ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`;

interface Sample {
  done: number;
  phase: string;
  rssMb: number;
  /** The server's threads: the main one, libuv's pool, and the render threads alive at that moment. */
  threads: number;
}

/** The server process's resident memory and thread count, read from /proc (Linux). */
function serverMemory(pid: number): { rssMb: number; threads: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(field('VmRSS') / 1024), threads: field('Threads') };
}

async function walk(pid: number, base: string, paths: string[], phase: string, samples: Sample[], every: number, offset = 0): Promise<{ errors: number; statuses: Record<number, number> }> {
  let next = 0;
  let errors = 0;
  const statuses: Record<number, number> = {};
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      try {
        const res = await fetch(base + paths[i]!, { headers: { 'X-Forwarded-For': nextIp() } });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 500) errors++;
      } catch {
        errors++;
      }
      if (i % every === 0) {
        const m = serverMemory(pid);
        samples.push({ done: offset + i, phase, ...m });
        if (i % (every * 10) === 0) log(`${phase} ${i}/${paths.length}: rss ${m.rssMb} MB, ${m.threads} threads`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { errors, statuses };
}

async function main() {
  const { handle } = await openBenchDatabase(N, log);
  const db = handle.db;
  const slugs = (
    await db.raw(
      `select slug from fundraisers where deleted_at is null and visibility = 'public' and status in ('active','ended') order by id limit ?`,
      [IMAGES],
    )
  ).rows.map((r: { slug: string }) => r.slug) as string[];
  const categories = (await db.raw('select slug from categories order by slug')).rows.map((r: { slug: string }) => r.slug) as string[];

  // The server as `npm start` runs it, in its own process, so RSS is the service's alone.
  const port = 3950 + Math.floor(Math.random() * 40);
  const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-memory-'));
  // package.json's own start command ("exec node <flags> scripts/start.mjs server"), without npm around it.
  const root = path.resolve(__dirname, '..');
  const start = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
  const child = spawn(process.execPath, start.replace(/^exec\s+node\s+/, '').split(/\s+/), {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      RUN_JOBS: 'false',
      TRUST_PROXY: 'true',
      HOST: '127.0.0.1',
      PORT: String(port),
      STORAGE_DIR: storage,
      // The bench's own database, embedded (started above) or on DATABASE_URL's server.
      DATABASE_URL: handle.url,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (await fetch(`${origin}/readyz`).then((r) => r.ok, () => false)) break;
    if (i > 120 || child.exitCode !== null) throw new Error('the server did not become ready');
    await new Promise((r) => setTimeout(r, 500));
  }
  const pid = child.pid!;
  const base = `${origin}/api/v1`;
  const idle = serverMemory(pid);
  log(`server ready (pid ${pid}): rss ${idle.rssMb} MB idle`);

  const images = slugs.flatMap((s) => ['og.png', 'poster.png', 'story.png'].map((f) => `/fundraisers/slug/${encodeURIComponent(s)}/${f}`));
  // Distinct list queries: every key differs (category x status x sort x limit x offset), so each is a cache miss.
  const lists: string[] = [];
  for (let i = 0; lists.length < LISTS; i++) {
    const cat = categories[i % Math.max(1, categories.length)] ?? '';
    const sort = i % 3 === 0 ? '&sort=raised' : '';
    const status = ['active', 'ended', 'all'][i % 3];
    lists.push(`/fundraisers?category=${cat}&status=${status}${sort}&limit=${1 + (i % 50)}&offset=${(i * 7) % 10_000}`);
  }

  const samples: Sample[] = [];
  const t0 = Date.now();
  const img = await walk(pid, base, images, 'images', samples, 20);
  const lst = await walk(pid, base, lists, 'lists', samples, 100, images.length);
  const seconds = (Date.now() - t0) / 1000;
  // The server's own view at the end (prom-client's process and V8 gauges; loopback needs no token).
  const metrics = await fetch(`${origin}/metrics`).then((r) => r.text(), () => '');
  const gauge = (name: string) => Math.round(Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)`, 'm').exec(metrics)?.[1] ?? NaN) / 1024 / 1024);
  const v8 = { heapUsed: gauge('nodejs_heap_size_used_bytes'), heapTotal: gauge('nodejs_heap_size_total_bytes'), external: gauge('nodejs_external_memory_bytes') };
  log(`at the end: V8 heap ${v8.heapUsed} MB used of ${v8.heapTotal} MB, external ${v8.external} MB`);
  child.kill('SIGTERM');
  await handle.close();
  fs.rmSync(storage, { recursive: true, force: true });

  // The bounds the server read from the environment it inherited.
  const served = parseConfig({ CACHE_MAX_ENTRIES: process.env.CACHE_MAX_ENTRIES, CACHE_MAX_MB: process.env.CACHE_MAX_MB, READ_CACHE_MAX_MB: process.env.READ_CACHE_MAX_MB });
  const warm = samples[Math.floor(samples.length / 5)] ?? samples[0]!;
  const baseline = samples[0]!;
  const peak = Math.max(...samples.map((s) => s.rssMb));
  const last = samples[samples.length - 1]!;
  const lines = [
    '# Memory bench (bench/memory.ts)',
    '',
    `Run ${new Date().toISOString()} with Node ${process.version}, the server as \`npm start\` runs it (compiled, its own process, RSS from /proc including render threads); ${images.length} share images (${slugs.length} campaigns x og/poster/story) then ${lists.length} distinct list queries, ${CONCURRENCY} concurrent, in ${seconds.toFixed(0)} s.`,
    `Cache bounds the server ran with: ${served.CACHE_MAX_ENTRIES} entries and ${served.CACHE_MAX_MB} MB in-process, ${served.READ_CACHE_MAX_MB} MB of read-cache answers.`,
    '',
    `| | RSS MB |`,
    `|---|---|`,
    `| idle, before the first request | ${idle.rssMb} |`,
    `| at the first sample | ${baseline.rssMb} |`,
    `| after warm-up (first fifth) | ${warm.rssMb} |`,
    `| peak | ${peak} |`,
    `| end | ${last.rssMb} |`,
    '',
    `At the end the server's V8 heap held ${v8.heapUsed} MB (of ${v8.heapTotal} MB allocated) and ${v8.external} MB outside it (Buffers).`,
    `Images: ${JSON.stringify(img.statuses)}; lists: ${JSON.stringify(lst.statuses)}; 5xx or network errors: ${img.errors + lst.errors}.`,
    `Goal: flat after warm-up and under 400 MB: ${peak < 400 ? 'met' : 'NOT met'}.`,
    '',
    '| requests done | phase | RSS MB | threads |',
    '|---|---|---|---|',
    ...samples.filter((_, i) => i % Math.max(1, Math.floor(samples.length / 40)) === 0).map((s) => `| ${s.done} | ${s.phase} | ${s.rssMb} | ${s.threads} |`),
    '',
  ];
  writeLatestRun('memory', {
    title: 'Memory bench (`npm run bench:memory`)',
    summary: `peak RSS ${peak} MB, end ${last.rssMb} MB after ${images.length} images and ${lists.length} lists`,
    body: ['## Latest run', ...lines.slice(1)].join('\n'),
  });
  log(`peak RSS ${peak} MB, end ${last.rssMb} MB; wrote bench/results/memory.md`);
}

void runBench('memory', 1800, () => main());
