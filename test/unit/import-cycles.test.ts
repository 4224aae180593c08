import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// A cycle among runtime imports makes load order decide which side sees `undefined`
// (a module half-initialised), so the dependency graph of src/ must stay acyclic.
// `import type` and imports of types only are erased at compile time and do not count.

const SRC = path.resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolveRelative(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const clause = node.exportClause;
    return !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
  }
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

/**
 * Runtime edges: static imports and re-exports at the top level of each file; with
 * `types: true`, type-only ones too.
 */
function importGraph(files: string[], opts: { types?: boolean } = {}): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
    const edges: string[] = [];
    for (const stmt of source.statements) {
      if (!ts.isImportDeclaration(stmt) && !ts.isExportDeclaration(stmt)) continue;
      const spec = stmt.moduleSpecifier;
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.') || (!opts.types && isTypeOnly(stmt))) continue;
      const target = resolveRelative(file, spec.text);
      if (target) edges.push(target);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** Every strongly connected component with more than one file (or a self-import), as a readable path. */
function findCycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: root, edge: 0 }];
    index.set(root, next); low.set(root, next); next++; stack.push(root); onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++];
        if (!index.has(to)) {
          index.set(to, next); low.set(to, next); next++; stack.push(to); onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do { member = stack.pop()!; onStack.delete(member); component.push(member); } while (member !== frame.node);
        const selfLoop = (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component);
      }
    }
  }
  return components.map((component) => cyclePath(graph, new Set(component)));
}

/** One concrete loop through a component (shortest from its first file back to itself), for the failure message. */
function cyclePath(graph: Map<string, string[]>, members: Set<string>): string[] {
  const start = [...members].sort()[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const loop = [start];
        for (let at = node; at !== start; at = previous.get(at)!) loop.splice(1, 0, at);
        return [...loop, start].map((file) => path.relative(SRC, file));
      }
      if (!previous.has(to)) { previous.set(to, node); queue.push(to); }
    }
  }
  return [start, start].map((file) => path.relative(SRC, file));
}

/**
 * The folder a file belongs to for the folder-level graph: `modules/<name>` and
 * `integrations/<name>` each, every other top folder (http, infra, events, jobs, db, cli) as one.
 * Files directly under src/ and src/modules/ (app.ts, context.ts, the collectors modules/index.ts,
 * modules/integrity.ts, modules/define-module.ts) stand alone: a collector imports every module and
 * must not be part of a module.
 */
function folderOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  if (parts.length === 1 || (parts[0] === 'modules' && parts.length === 2)) return file;
  if ((parts[0] === 'modules' || parts[0] === 'integrations') && parts.length > 2) return path.join(SRC, parts[0], parts[1]);
  return path.join(SRC, parts[0]);
}

/**
 * Folder-level edges that may remain, each `from -> to` (relative to src/), each justified in a
 * comment. Keep at most five. None today: where a route table needs a read of a module that
 * depends on its own, src/modules/index.ts passes the read in (webhookRoutes, fundraisersRoutes,
 * notificationsRoutes).
 */
const FOLDER_EDGE_EXCEPTIONS: Array<[string, string]> = [];

/**
 * Runtime edges between folders (a file graph collapsed onto folderOf), without the exceptions.
 * Type-only imports are left out here (the file-level test counts them): they are erased at
 * compile time and cannot decide load order, and nearly every folder names `AppContext`, the
 * type of context.ts, which itself builds the http pipeline, the integrations and the credential
 * resolver; counting those would make the composition root a cycle with everything.
 */
function folderGraph(files: Map<string, string[]>, exceptions: Array<[string, string]> = FOLDER_EDGE_EXCEPTIONS): Map<string, string[]> {
  const skip = new Set(exceptions.map(([from, to]) => `${path.join(SRC, from)} ${path.join(SRC, to)}`));
  const graph = new Map<string, string[]>();
  for (const [file, targets] of files) {
    const from = folderOf(file);
    const edges = graph.get(from) ?? [];
    graph.set(from, edges);
    for (const target of targets) {
      const to = folderOf(target);
      if (to !== from && !edges.includes(to) && !skip.has(`${from} ${to}`)) edges.push(to);
    }
  }
  return graph;
}

describe('import cycles in src/', () => {
  it('when src/ is scanned, then no runtime import cycle exists', () => {
    const cycles = findCycles(importGraph(sourceFiles(SRC)));
    const described = cycles.map((loop) => loop.join(' -> '));
    expect(described).toEqual([]);
  });

  // A type-only loop cannot half-initialise a module, but it still means neither file can be read
  // or moved without the other (context.ts <-> define-routes <-> the credential resolver was one).
  it('when src/ is scanned with type-only imports too, then no file reaches itself', () => {
    const cycles = findCycles(importGraph(sourceFiles(SRC), { types: true }));
    expect(cycles.map((loop) => loop.join(' -> '))).toEqual([]);
  });

  it('when src/ is scanned by folder, then no module, integration or top folder depends on itself through others', () => {
    const cycles = findCycles(folderGraph(importGraph(sourceFiles(SRC))));
    const described = cycles.map((loop) => loop.join(' -> '));
    expect(described).toEqual([]);
  });

  it('when the folder exceptions are listed, then there are at most five and each names a real edge', () => {
    expect(FOLDER_EDGE_EXCEPTIONS.length).toBeLessThanOrEqual(5);
    const strict = folderGraph(importGraph(sourceFiles(SRC)), []);
    for (const [from, to] of FOLDER_EDGE_EXCEPTIONS) {
      expect(strict.get(path.join(SRC, from))).toContain(path.join(SRC, to));
    }
  });

  it('when files in two module folders import each other across folders, then the folder graph reports the loop', () => {
    const file = (rel: string) => path.join(SRC, rel);
    const files = new Map([
      [file('modules/a/a.service.ts'), [file('modules/b/index.ts')]],
      [file('modules/b/index.ts'), [file('modules/b/b.repo.ts')]],
      [file('modules/b/b.repo.ts'), [file('modules/a/index.ts')]],
      [file('modules/a/index.ts'), []],
    ]);
    expect(findCycles(folderGraph(files, []))).toEqual([['modules/a', 'modules/b', 'modules/a']]);
    expect(findCycles(folderGraph(files, [['modules/b', 'modules/a']]))).toEqual([]);
  });

  it('when two files import each other, then the finder reports the loop', () => {
    const a = path.join(SRC, 'a.ts');
    const b = path.join(SRC, 'b.ts');
    const c = path.join(SRC, 'c.ts');
    const graph = new Map([[a, [b]], [b, [c]], [c, [a]], [path.join(SRC, 'd.ts'), [a]]]);
    expect(findCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('when a file imports only types, then that import is not an edge', () => {
    const parse = (text: string) => {
      const stmt = ts.createSourceFile('x.ts', text, ts.ScriptTarget.ES2022).statements[0];
      return isTypeOnly(stmt as ts.ImportDeclaration);
    };
    expect(parse("import type { A } from './a';")).toBe(true);
    expect(parse("import { type A, type B } from './a';")).toBe(true);
    expect(parse("import { type A, b } from './a';")).toBe(false);
    expect(parse("import './a';")).toBe(false);
  });
});
