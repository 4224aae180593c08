import fs from 'node:fs';
import path from 'node:path';

/**
 * The checkout's root (the folder with package.json), found the same from `src/` run through tsx
 * and from `dist/src/` compiled by `npm run build`: files that are not compiled (the recorded
 * OpenAPI examples) are read from here, never from a path relative to the running file.
 */
export const PROJECT_ROOT = ((): string => {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(__dirname, '..');
  }
})();
