import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/markdown';

/**
 * Nothing in the repository points outside it. A comment or page may cite a decision record or a
 * doc of docs/, never a working note that is not in the repository, a folder beside it, or an
 * issue number no reader of the repository can open (docs/decisions/README.md says where the
 * reasons now live); and every repository path it names exists.
 */
const SCANNED = ['src', 'scripts', 'test', 'bench', 'docs', 'migrations', 'seeds', 'clients/typescript/src', 'clients/typescript/scripts', 'ops', '.ci'];
const TEXT = /\.(ts|mts|cts|js|mjs|cjs|md|json|ya?ml|sh|sql|txt)$|(^|\/)run$/;
const SELF = path.relative(ROOT, __filename);

function files(): string[] {
  const out = ['README.md', '.env.example', 'Dockerfile', 'docker-compose.yml', 'package.json'];
  const walk = (dir: string) => {
    const abs = path.join(ROOT, dir);
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(rel);
      } else if (TEXT.test(rel)) out.push(rel);
    }
  };
  SCANNED.forEach(walk);
  return out.filter((f) => f !== SELF && fs.existsSync(path.join(ROOT, f)));
}

// Built from parts so that this file does not match itself.
const OUTSIDE: Array<[string, RegExp]> = [
  ['the decisions working note', new RegExp(['decisions', '\\.md'].join(''), 'i')],
  ['the working note by its parts', new RegExp(['\\bdecisions', ' Part \\d'].join(''), 'i')],
  ['the interface file outside the repository', new RegExp(['crowdfunding-api', '\\.md'].join(''), 'i')],
  ['a folder beside the repository', new RegExp(['\\.\\./', 'shared\\b'].join(''))],
  ['an issue number', new RegExp(['\\bissues?', ' #?\\d+'].join(''), 'i')],
  ['an issue number', new RegExp(['(?:^|[\\s(\\[])', '#\\d{1,4}\\b(?![\\w-])'].join(''), 'm')],
];

/** Paths from the repository's root named in text: `src/http/errors.ts`, `docs/money/ledger.md`, ... */
const REPO_PATH = /(?<![\w./@-])((?:src|test|docs|bench|scripts|migrations|seeds|ops|clients)\/[\w./-]*[\w-]\.(?:ts|mts|js|mjs|cjs|md|json|ya?ml|sh|png|svg|sql))(?![\w/])/g;

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** What a reader reads as prose: a code file's comments (string literals there are data, e.g. fixture paths), any other file whole. */
function commentOf(file: string, line: string): string {
  if (!CODE.test(file)) return line;
  const t = line.trim();
  if (t.startsWith('*') || t.startsWith('/*') || t.startsWith('//')) return line;
  const at = line.indexOf(' // ');
  return at >= 0 ? line.slice(at) : '';
}

describe('references inside the repository', () => {
  const all = files();

  test('when the scanned files are listed, then sources, tests, scripts, benches and docs are among them', () => {
    for (const f of ['src/config.ts', 'README.md', 'docs/README.md', 'bench/README.md', 'scripts/cluster.ts']) expect(all).toContain(f);
  });

  test('when every file is read, then none cites a document outside the repository or an issue number', () => {
    const found: string[] = [];
    for (const f of all) {
      const lines = fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n');
      lines.forEach((line, i) => {
        for (const [what, re] of OUTSIDE) if (re.test(line)) found.push(`${f}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found).toEqual([]);
  });

  test('when a comment or a page names a path of the repository, then that path exists', () => {
    const missing: string[] = [];
    for (const f of all) {
      const lines = fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n');
      // A client workspace names its own files from its own root (clients/typescript/src/...).
      const roots = [ROOT, ...(f.startsWith('clients/') ? [path.join(ROOT, f.split('/').slice(0, 2).join('/'))] : [])];
      lines.forEach((line, i) => {
        for (const m of commentOf(f, line).matchAll(REPO_PATH)) {
          const p = m[1]!;
          if (!roots.some((r) => fs.existsSync(path.join(r, p)))) missing.push(`${f}:${i + 1}: ${p}`);
        }
      });
    }
    expect(missing).toEqual([]);
  });

  test('when the architecture page lists the modules, then every module folder is on it', () => {
    const page = fs.readFileSync(path.join(ROOT, 'docs/architecture/README.md'), 'utf8');
    const modules = fs.readdirSync(path.join(ROOT, 'src/modules'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(modules.filter((m) => !page.includes(`\`${m}\``))).toEqual([]);
  });
});
