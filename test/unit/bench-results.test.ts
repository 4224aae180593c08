import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RESULTS_DIR, writeLatestRun } from '../../bench/results';

describe('bench results: one file per bench, latest run first, a dated history', () => {
  test('when a bench writes two runs, then the second is the latest in full and the first a dated history line', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-results-'));
    try {
      writeLatestRun('demo', { title: 'Demo bench', summary: '100 req/s', body: '<!-- demo:start -->\n## Latest run\n\nfirst body\n<!-- demo:end -->', date: '2026-01-01' }, dir);
      const file = writeLatestRun('demo', { title: 'Demo bench', summary: '120 req/s', body: '## Latest run\n\nsecond body', date: '2026-01-02' }, dir);
      const text = fs.readFileSync(file, 'utf8');
      expect(text.startsWith('# Demo bench\n')).toBe(true);
      expect(text).toContain('second body');
      expect(text).not.toContain('first body');
      expect(text).not.toContain('demo:start');
      expect(text.indexOf('second body')).toBeLessThan(text.indexOf('## History'));
      expect(text).toContain('\n- 2026-01-01: 100 req/s\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('when the committed results are read, then each file names its latest run and has a history', () => {
    const files = fs.readdirSync(RESULTS_DIR).filter((f) => f.endsWith('.md'));
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const f of files) {
      const text = fs.readFileSync(path.join(RESULTS_DIR, f), 'utf8');
      // settle-load's table of runs, newest first, is its own history.
      if (f === 'settle-load.md') continue;
      expect([f, /<!-- latest-run: [^|]+ \| .+ -->/.test(text) && text.includes('\n## History\n')]).toEqual([f, true]);
    }
  });
});
