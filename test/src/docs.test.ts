import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/build.js';

const DOCS = ['README.md', 'docs/agents.md', 'docs/curators.md', 'docs/operators.md', 'docs/evaluation.md', 'docs/performance.md'];

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) => heading.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');

t.test('the README is short and by audience: the two commands, connecting an agent, and links to a document per audience (issue 24, item 23)', async (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n').length;
  t.ok(lines <= 260, `README.md: ${lines} lines`);
  t.match(readme, 'npm install && npm start');
  t.match(readme, 'npm test');
  t.match(readme, /## Connect an MCP client/);
  for (const doc of DOCS.slice(1)) t.match(readme, `](${doc})`, `links ${doc}`);
});

t.test('every relative link in the README and the docs reaches a file, and its #anchor a heading there', async (t) => {
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [file, anchor] = target!.split('#');
      const path = file === '' ? join(ROOT, doc) : join(ROOT, dirname(doc), file!);
      t.ok(existsSync(path), `${doc}: ${target} exists`);
      if (anchor === undefined || !path.endsWith('.md')) continue;
      const headings = [...readFileSync(path, 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1]!));
      t.ok(headings.includes(anchor), `${doc}: #${anchor} is a heading of ${file || doc}`);
    }
  }
});
