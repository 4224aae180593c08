import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../src/db/knex';

/**
 * A wrk script cycling through `paths`, each request from its own client address (so the
 * per-IP public limiter never throttles the load); answers the script's path in `dir`.
 */
export function wrkScript(dir: string, name: string, paths: string[]): string {
  const file = path.join(dir, `${name}.lua`);
  fs.writeFileSync(
    file,
    `local paths = { ${paths.map((p) => JSON.stringify(p)).join(', ')} }
local n = 0
local tid = 0
local counter = 0
function setup(thread) counter = counter + 1; thread:set("tid", counter) end
function init(args) tid = tonumber(wrk.thread:get("tid")) or 0 end
request = function()
  n = n + 1
  local k = tid * 4000000 + n
  local ip = string.format("10.%d.%d.%d", math.floor(k / 65536) % 256, math.floor(k / 256) % 256, k % 256)
  return wrk.format("GET", paths[(n % #paths) + 1], { ["X-Forwarded-For"] = ip })
end
`,
  );
  return file;
}

export interface Captured {
  sql: string;
  bindings: unknown[];
}

/** The one statement (with $n placeholders) and bindings a repository call sends; throws if it sends several. */
export async function captureStatement(db: Db, call: () => Promise<unknown>): Promise<Captured> {
  const seen: Captured[] = [];
  const on = (q: { sql: string; bindings?: unknown[] }) => seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  db.on('query', on);
  try {
    await call();
  } finally {
    db.off('query', on);
  }
  if (seen.length !== 1) throw new Error(`expected one statement, saw ${seen.length}`);
  return seen[0]!;
}
