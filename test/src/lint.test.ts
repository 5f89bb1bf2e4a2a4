import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ROOT } from '../helpers/build.js';

const run = promisify(execFile);
const eslint = join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');

/** ESLint on one text as if it were a file of src/, with the project's configuration. */
async function lintText (text: string): Promise<{ code: number; out: string }> {
  const child = run(process.execPath, [eslint, '--stdin', '--stdin-filename', join(ROOT, 'src', 'lint-probe.ts')], { cwd: ROOT });
  child.child.stdin!.end(text);
  try {
    return { code: 0, out: (await child).stdout };
  } catch (err) {
    const { code, stdout } = err as { code: number; stdout: string };
    return { code, out: stdout };
  }
}

t.test('npm test lints the code base with the configuration Fastify projects use (neostandard) (issue 33, item 14)', async (t) => {
  const scripts = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  t.equal(scripts.lint, 'eslint .');
  t.match(scripts.test, /&& eslint \. &&/, 'the test command runs the linter');
  t.equal((await lintText("export const ok = 'formatted';\n")).code, 0, 'code in the house style passes');
  const long = await lintText(`export const sum = ${Array.from({ length: 60 }, (_, i) => `${i}`).join(' + ')};\n`);
  t.equal(long.code, 1);
  t.match(long.out, /max-len/, 'a line over 160 characters fails');
  const style = await lintText('export function f(a: number) {\n\treturn a\n}\n');
  t.equal(style.code, 1);
  t.match(style.out, /indent/, 'tabs fail');
  t.match(style.out, /semi/, 'a missing semicolon fails');
  t.match(style.out, /space-before-function-paren/, 'the function paren spacing of standard style');
});
