import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One place a source file names a table: through knex's builder or inside SQL text. */
export interface TableRef {
  file: string;
  line: number;
  table: string;
  write: boolean;
}

// Calls whose first string argument is a table: `db('t')`, `trx('t as x')`, `ctx.db('t')`.
const ENTRY_CALLEES = new Set(['db', 'trx', 'knex', 'tx', 'conn']);
// Builder methods whose first string argument is a table.
const TABLE_METHODS = new Set(['from', 'into', 'table', 'join', 'innerJoin', 'leftJoin', 'leftOuterJoin', 'rightJoin', 'rightOuterJoin', 'fullOuterJoin', 'crossJoin', 'delete', 'del', 'update', 'insert', 'truncate']);
const TARGET_METHODS = new Set(['from', 'into', 'table']);
// A chain that reaches one of these changes rows of the chain's target table.
const WRITE_METHODS = new Set(['insert', 'update', 'del', 'delete', 'increment', 'decrement', 'merge', 'truncate', 'upsert']);
const SQL_REF = /\b(insert\s+into|delete\s+from|update|from|join|truncate(?:\s+table)?)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?/gi;

/** The tables the migrations create (createTable('x') or CREATE TABLE x). */
export function migrationTables(dir: string): Set<string> {
  const out = new Set<string>();
  for (const f of fs.readdirSync(dir)) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of text.matchAll(/createTable(?:IfNotExists)?\(\s*'([a-z_0-9]+)'/g)) out.add(m[1]);
    for (const m of text.matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?"?([a-z_0-9]+)"?/gi)) out.add(m[1].toLowerCase());
  }
  out.delete('if');
  return out;
}

const firstWord = (s: string) => s.trim().split(/\s+/)[0];

function calleeName(expr: ts.Expression): string | null {
  if (ts.isIdentifier(expr)) return expr.text;
  if (ts.isPropertyAccessExpression(expr)) return expr.name.text;
  return null;
}

/** The method names called after `node` along its fluent chain: `db('t').where(..).update(..)` gives where, update. */
function chainMethods(node: ts.Node): string[] {
  const out: string[] = [];
  let cur: ts.Node = node;
  for (;;) {
    const parent: ts.Node = cur.parent;
    if (!(parent && ts.isPropertyAccessExpression(parent) && parent.expression === cur && parent.parent && ts.isCallExpression(parent.parent) && parent.parent.expression === parent)) return out;
    out.push(parent.name.text);
    cur = parent.parent;
  }
}

/** The method names called before `call` in its chain (its receiver's calls), innermost last. */
function receiverMethods(call: ts.CallExpression): string[] {
  const out: string[] = [];
  let e: ts.Expression = call.expression;
  while (ts.isPropertyAccessExpression(e) && ts.isCallExpression(e.expression)) {
    const inner = e.expression;
    const name = calleeName(inner.expression);
    if (name) out.push(name);
    e = inner.expression;
  }
  return out;
}

function literalText(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return null;
}

/** Every table reference in one file's source. */
export function tableRefs(file: string, source: string, tables: Set<string>): TableRef[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const out: TableRef[] = [];
  const lineOf = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const builderLiterals = new Set<ts.Node>();

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const arg = node.arguments[0];
      const text = literalText(arg);
      const name = calleeName(node.expression);
      if (text !== null && name && tables.has(firstWord(text))) {
        const table = firstWord(text);
        // calleeName answers only for `f(...)` and `x.f(...)`, so either form of an entry call counts.
        if (ENTRY_CALLEES.has(name)) {
          builderLiterals.add(arg);
          out.push({ file, line: lineOf(node), table, write: chainMethods(node).some((m) => WRITE_METHODS.has(m)) });
        } else if (ts.isPropertyAccessExpression(node.expression) && TABLE_METHODS.has(name)) {
          builderLiterals.add(arg);
          const target = TARGET_METHODS.has(name);
          const chain = [...receiverMethods(node), ...chainMethods(node)];
          out.push({ file, line: lineOf(node), table, write: target && chain.some((m) => WRITE_METHODS.has(m)) });
        }
      }
    }
    const pieces: string[] = [];
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && !builderLiterals.has(node)) pieces.push(node.text);
    if (ts.isTemplateExpression(node)) {
      pieces.push(node.head.text, ...node.templateSpans.map((s) => s.literal.text));
    }
    for (const text of pieces) {
      for (const m of text.matchAll(SQL_REF)) {
        const table = m[2].toLowerCase();
        if (!tables.has(table)) continue;
        const verb = m[1].toLowerCase().replace(/\s+/g, ' ');
        // "update" inside "for update" or "do update set" is not a table reference.
        if (verb === 'update' && /(for|do)\s+$/i.test(text.slice(0, m.index))) continue;
        out.push({ file, line: lineOf(node), table, write: verb !== 'from' && verb !== 'join' });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every .ts file under `dir`, relative to `root`, with forward slashes. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(path.relative(root, p).split(path.sep).join('/'));
    }
  };
  walk(path.join(root, dir));
  return out.sort();
}
