/**
 * Memory bench (issue 16): the app in-process on the bench database (100k campaigns, seeded by
 * bench/seed.ts when missing), walking many campaigns' share images (og, poster, story) and many
 * distinct list queries, sampling resident memory (RSS) as it goes. The goal: flat after warm-up
 * and under 400 MB, because every in-process cache is bounded (CACHE_MAX_ENTRIES, CACHE_MAX_MB).
 *
 *   DATABASE_URL=postgres://... npm run bench:memory
 *   BENCH_CAMPAIGNS=100000 BENCH_MEMORY_IMAGES=3000 BENCH_MEMORY_LISTS=20000 BENCH_CONCURRENCY=4
 *
 * Writes bench/MEMORY.md. Runs without REDIS_URL: the in-process cache is the one under test.
 */
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildApp } from '../src/app';
import { parseConfig } from '../src/config';
import { createContext } from '../src/create-context';
import { connectDatabase } from '../src/db/connect';
import { createLogger } from '../src/infra/logger';
import { registerJobs } from '../src/jobs';
import { benchDatabaseUrl, BENCH_DB, ensureSeeded } from './db';

const N = Number(process.env.BENCH_CAMPAIGNS ?? 100_000);
const IMAGES = Number(process.env.BENCH_MEMORY_IMAGES ?? 3_000);
const LISTS = Number(process.env.BENCH_MEMORY_LISTS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const log = (m: string) => process.stdout.write(`[memory] ${m}\n`);
const mb = (n: number) => Math.round(n / 1024 / 1024);

let ip = 0;
const nextIp = () => `10.${(++ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`;

interface Sample {
  done: number;
  phase: string;
  rssMb: number;
  heapMb: number;
  /** Memory outside the V8 heap that V8 knows of (Buffers, ArrayBuffers): with RSS minus heap, tells native leaks apart. */
  externalMb: number;
}

async function walk(base: string, paths: string[], phase: string, samples: Sample[], every: number, offset = 0): Promise<{ errors: number; statuses: Record<number, number> }> {
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
        const m = process.memoryUsage();
        samples.push({ done: offset + i, phase, rssMb: mb(m.rss), heapMb: mb(m.heapUsed), externalMb: mb(m.external) });
        if (i % (every * 10) === 0) log(`${phase} ${i}/${paths.length}: rss ${mb(m.rss)} MB, heap ${mb(m.heapUsed)} MB, external ${mb(m.external)} MB`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { errors, statuses };
}

async function main() {
  const databaseUrl = await benchDatabaseUrl();
  const config = parseConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    RUN_JOBS: 'false',
    TRUST_PROXY: 'true',
    DATA_DIR: path.resolve(__dirname, '../.data/bench'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  // No statement timeout: seeding 100k campaigns runs long statements.
  const handle = await connectDatabase(config, { log: () => undefined, statementTimeoutMs: 0 });
  const db = handle.db;
  log(`database: ${handle.embedded ? 'embedded' : 'DATABASE_URL/' + BENCH_DB}`);
  await ensureSeeded(db, N, log);
  const slugs = (
    await db.raw(
      `select slug from fundraisers where deleted_at is null and visibility = 'public' and status in ('active','ended') order by id limit ?`,
      [IMAGES],
    )
  ).rows.map((r: { slug: string }) => r.slug) as string[];
  const categories = (await db.raw('select slug from categories order by slug')).rows.map((r: { slug: string }) => r.slug) as string[];

  const ctx = createContext({ config, db, log: createLogger('silent'), redis: null });
  registerJobs(ctx);
  const server: Server = buildApp(ctx).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;

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
  const img = await walk(base, images, 'images', samples, 20);
  const lst = await walk(base, lists, 'lists', samples, 100, images.length);
  const seconds = (Date.now() - t0) / 1000;
  server.close();
  await handle.close();

  const warm = samples[Math.floor(samples.length / 5)] ?? samples[0]!;
  const baseline = samples[0]!;
  const peak = Math.max(...samples.map((s) => s.rssMb));
  const last = samples[samples.length - 1]!;
  const lines = [
    '# Memory bench (bench/memory.ts)',
    '',
    `Run ${new Date().toISOString()} with Node ${process.version}; ${images.length} share images (${slugs.length} campaigns x og/poster/story) then ${lists.length} distinct list queries, ${CONCURRENCY} concurrent, in ${seconds.toFixed(0)} s.`,
    `In-process cache bounds: ${config.CACHE_MAX_ENTRIES} entries, ${config.CACHE_MAX_MB} MB.`,
    '',
    `| | RSS MB |`,
    `|---|---|`,
    `| at the first request | ${baseline.rssMb} |`,
    `| after warm-up (first fifth) | ${warm.rssMb} |`,
    `| peak | ${peak} |`,
    `| end | ${last.rssMb} |`,
    '',
    `Images: ${JSON.stringify(img.statuses)}; lists: ${JSON.stringify(lst.statuses)}; 5xx or network errors: ${img.errors + lst.errors}.`,
    `Goal: flat after warm-up and under 400 MB: ${peak < 400 ? 'met' : 'NOT met'}.`,
    '',
    '| requests done | phase | RSS MB | heap MB | external MB |',
    '|---|---|---|---|---|',
    ...samples.filter((_, i) => i % Math.max(1, Math.floor(samples.length / 40)) === 0).map((s) => `| ${s.done} | ${s.phase} | ${s.rssMb} | ${s.heapMb} | ${s.externalMb} |`),
    '',
  ];
  fs.writeFileSync(path.join(__dirname, 'MEMORY.md'), lines.join('\n'));
  log(`peak RSS ${peak} MB, end ${last.rssMb} MB; wrote bench/MEMORY.md`);
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`memory bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
