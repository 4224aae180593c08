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

/** Runtime edges: static imports and re-exports at the top level of each file. */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
    const edges: string[] = [];
    for (const stmt of source.statements) {
      if (!ts.isImportDeclaration(stmt) && !ts.isExportDeclaration(stmt)) continue;
      const spec = stmt.moduleSpecifier;
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.') || isTypeOnly(stmt)) continue;
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

describe('import cycles in src/', () => {
  it('when src/ is scanned, then no runtime import cycle exists', () => {
    const cycles = findCycles(importGraph(sourceFiles(SRC)));
    const described = cycles.map((loop) => loop.join(' -> '));
    expect(described).toEqual([]);
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
