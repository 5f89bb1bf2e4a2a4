import { execFile } from 'node:child_process';
import { readFile, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ROOT } from '../helpers/build.js';

const run = promisify(execFile);
const build = () => run(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT });

t.test('dist/ is built once and again only when the sources change: npm start and every tap run go through it (issue 24, items 12 and 22)', async (t) => {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.equal(pkg.scripts.prestart, 'node scripts/build.mjs', 'npm start builds only when needed');
  t.notOk(pkg.scripts.prepare, 'no prepare script (nothing built at install)');
  t.match(await readFile(join(ROOT, '.taprc'), 'utf8'), /^before: scripts\/build\.mjs$/m, 'every tap run, a single file too, builds stale sources first');

  await build();
  const quiet = await build();
  t.equal(quiet.stderr, '', 'up to date: nothing is compiled, nothing said');
  // An edit, as an editor makes it: the file's time changes.
  const source = join(ROOT, 'src', 'project.ts');
  const { atime, mtime } = await stat(source);
  const later = new Date(mtime.getTime() + 2000);
  await utimes(source, atime, later);
  t.teardown(async () => {
    await utimes(source, atime, mtime);
    await build();
  });
  const rebuilt = await build();
  t.match(rebuilt.stderr, /^three-good-sources: building dist\/ \(the sources changed since the last build\)$/m, 'a changed source: rebuilt, and said so');
  t.equal((await build()).stderr, '', 'then up to date again');
});
