import { execFile } from 'node:child_process';
import { mkdtemp, readFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { packageVersion } from '../../src/project.js';
import { ROOT } from '../helpers/build.js';
import { start } from '../helpers/process.js';

const run = promisify(execFile);

t.test('the CLI from a packed tarball: built files inside, no prepare script, --version, and serve starts the server (issue 24, item 13)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), '3gs-pack-'));
  // npm pack runs prepack, which builds dist/ into the tarball: installing it runs no build.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  const files = packed!.files.map((f) => f.path);
  for (const needed of ['bin/three-good-sources.mjs', 'dist/src/cli/main.js', 'dist/src/server.js', 'registry.json', 'server.json', 'LICENSE', 'views/home.eta']) t.ok(files.includes(needed), `packed: ${needed}`);
  t.notOk(files.some((f) => f.startsWith('src/') || f.startsWith('test/')), 'no sources or tests in the package');
  t.notOk(files.some((f) => f.endsWith('.map')), 'no source maps, which would point at sources the package does not hold (issue 33, item 13)');
  await run('tar', ['-xzf', join(dir, packed!.filename), '-C', dir]);
  const installed = join(dir, 'package');
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  t.notOk(manifest.scripts?.prepare, 'no prepare script: nothing is built at install time');
  // Its dependencies, as npm install would put them beside it (no network needed here).
  await symlink(join(ROOT, 'node_modules'), join(installed, 'node_modules'));
  const bin = join(installed, 'bin', 'three-good-sources.mjs');
  t.equal((await run(process.execPath, [bin, '--version'])).stdout.trim(), packageVersion());
  const server = start({ PORT: '0' }, bin, [], ['serve']);
  t.teardown(() => server.kill('SIGKILL'));
  const address = await server.address;
  const health = await fetch(`${address}/health`);
  t.equal(health.status, 200, 'three-good-sources serve answers');
  t.match(await health.json(), { status: 'ok', serverVersion: packageVersion() });
  server.kill('SIGTERM');
  t.equal(await server.code, 0, 'and stops cleanly on SIGTERM');
  t.notMatch(server.stderr(), /building dist/, 'the packed install runs the built files, no build');
});
