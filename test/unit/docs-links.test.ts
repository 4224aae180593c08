import fs from 'node:fs';
import path from 'node:path';
import { ROOT, anchors, linkTargets, markdownFiles } from '../helpers/markdown';

// Every relative link of the README, docs/ and bench/ reaches a file of the repository, and its
// #anchor a heading of that file: a reader who follows one never lands nowhere.
describe('links in the README, docs/ and bench/', () => {
  const files = markdownFiles();

  test('when the Markdown files are listed, then the README and every reader\'s folder are among them', () => {
    for (const f of ['README.md', 'docs/README.md', 'docs/getting-started/README.md', 'docs/integrators/README.md',
      'docs/money/README.md', 'docs/privacy/README.md', 'docs/operations/README.md', 'docs/architecture/README.md',
      'docs/decisions/README.md', 'bench/README.md']) {
      expect(files).toContain(f);
    }
  });

  test('when every relative link is followed, then its file exists and its anchor is a heading there', () => {
    const broken: string[] = [];
    for (const file of files) {
      const md = fs.readFileSync(path.join(ROOT, file), 'utf8');
      for (const target of linkTargets(md)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [rel, anchor] = target.split('#') as [string, string | undefined];
        const dest = rel === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), decodeURI(rel));
        if (!dest.startsWith(ROOT + path.sep) && dest !== ROOT) {
          broken.push(`${file}: ${target} leaves the repository`);
          continue;
        }
        if (!fs.existsSync(dest)) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && anchor !== '') {
          if (!dest.endsWith('.md')) broken.push(`${file}: ${target} (an anchor into a file that is not Markdown)`);
          else if (!anchors(fs.readFileSync(dest, 'utf8')).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  test('when a page is read, then it stays under about 400 lines', () => {
    const long = files.filter((f) => f.startsWith('docs/') || f === 'README.md')
      .map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n').length] as const)
      .filter(([, n]) => n > 420);
    expect(long).toEqual([]);
  });

  test('when the README is read, then it is at most 200 lines and its quick start is the two commands', () => {
    const md = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(md.split('\n').length).toBeLessThanOrEqual(200);
    expect(md).toContain('```sh\nnpm ci && npm start\n```');
    expect(md).toContain('```sh\nnpm test\n```');
  });
});
