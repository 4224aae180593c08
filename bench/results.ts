import fs from 'node:fs';
import path from 'node:path';

/** Where each bench keeps its results: bench/results/<bench>.md. */
export const RESULTS_DIR = path.join(__dirname, 'results');

const LATEST = /<!-- latest-run: ([^|]*?) \| (.*?) -->\n[\s\S]*?<!-- latest-run:end -->\n?/;
const MAX_HISTORY = 30;

/**
 * Writes a bench's run as the latest one of bench/results/<bench>.md: the file's title, the run
 * in full, then a dated history with one line per earlier run (the run this one replaces becomes
 * the top line, by its date and summary). Older lines past MAX_HISTORY are dropped. Answers the path.
 */
export function writeLatestRun(bench: string, run: { title: string; summary: string; body: string; date?: string }, dir = RESULTS_DIR): string {
  const file = path.join(dir, `${bench}.md`);
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const history = old.includes('\n## History\n') ? old.slice(old.indexOf('\n## History\n') + '\n## History\n'.length).split('\n').filter((l) => l.startsWith('- ')) : [];
  const previous = LATEST.exec(old);
  if (previous) history.unshift(`- ${previous[1]!.trim()}: ${previous[2]!.trim()}`);
  const date = run.date ?? new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  const body = run.body.replace(/<!-- [a-z0-9-]+:(start|end) -->\n?/g, '').trim();
  const text = [
    `# ${run.title}`,
    '',
    `<!-- latest-run: ${date} | ${run.summary.replace(/\s+/g, ' ').replace(/-->/g, '--')} -->`,
    body,
    '<!-- latest-run:end -->',
    '',
    '## History',
    '',
    ...(history.length ? history.slice(0, MAX_HISTORY) : ['- (no earlier run recorded)']),
    '',
  ].join('\n');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}
