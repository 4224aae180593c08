// `npm start` / `npm run worker`: the service as compiled JavaScript (dist/), not through tsx,
// which compiles every source in the serving process and keeps about 90 MB for it. Where the
// compiler is installed (a checkout) the sources are compiled first, incrementally (seconds when
// nothing changed); a production image ships dist/ built and no compiler, and runs it as it is.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, statSync, unlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = process.argv[2] === 'worker' ? 'worker' : 'server';
const require = createRequire(path.join(root, 'package.json'));
const resolves = (id) => {
  try {
    return require.resolve(id);
  } catch {
    return null;
  }
};

/** One compile at a time: a second `npm start` beside the first waits, then finds dist/ current. */
async function withBuildLock(fn) {
  const lock = path.join(root, 'dist', '.build.lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      try {
        return fn();
      } finally {
        closeSync(fd);
        unlinkSync(lock);
      }
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // A lock left by a compile that was killed is stale after two minutes.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 120_000) unlinkSync(lock);
      else await sleep(200);
    }
  }
}

const tsc = resolves('typescript/bin/tsc');
if (tsc && resolves('@types/node/package.json')) {
  const built = await withBuildLock(() => spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' }));
  if (built.status !== 0) {
    process.stderr.write(`Failed to start: compiling the sources failed (tsc exited ${built.status ?? built.signal})\n`);
    process.exit(1);
  }
}
const compiled = path.join(root, 'dist', 'src', `${entry}.js`);
if (!existsSync(compiled)) {
  process.stderr.write(`Failed to start: ${path.relative(root, compiled)} is missing; run \`npm run build\` (needs the dev dependencies)\n`);
  process.exit(1);
}
await import(pathToFileURL(compiled).href);
