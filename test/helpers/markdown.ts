import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

/** Every Markdown file a reader of the repository follows links in: the README, docs/ and bench/. */
export function markdownFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    if (!fs.existsSync(path.join(ROOT, dir))) return;
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  walk('bench');
  return out.sort();
}

/** The text outside fenced code blocks (links inside code are examples, not links). */
export function prose(md: string): string {
  return md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

export interface CodeBlock {
  lang: string;
  body: string;
}

export function codeBlocks(md: string): CodeBlock[] {
  return [...md.matchAll(/^```([\w-]*)[^\n]*\n([\s\S]*?)^```\s*$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen; repeats get -1, -2, ... */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(md).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = m[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = text.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Targets of Markdown links and images in the prose, inline code left out. */
export function linkTargets(md: string): string[] {
  const text = prose(md).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}
