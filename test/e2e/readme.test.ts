import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ROOT, TEST_PUBLIC_KEY, build } from '../helpers/build.js';

const run = promisify(execFile);
const README = await readFile(join(ROOT, 'README.md'), 'utf8');
const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const block = (marker: string): string => {
  const found = blocks.find((b) => b.includes(marker));
  if (found === undefined) throw new Error(`no sh block in README.md contains ${marker}`);
  return found;
};

/** Runs a README block as written, against our test server instead of 127.0.0.1:3000. */
async function runBlock(t: { teardown(fn: () => unknown): void }, marker: string, shell = 'sh', inProject = false) {
  const app = await build(t);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const script = block(marker).replaceAll('http://127.0.0.1:3000', address);
  // npx finds our command in the project folder, where the README's npm install ran.
  const cwd = inProject ? ROOT : await mkdtemp(join(tmpdir(), '3gs-readme-'));
  const { stdout, stderr } = await run(shell, ['-e', '-c', script], { cwd, env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` }, timeout: 60_000 });
  return { stdout, stderr, cwd };
}

t.test('README: the 2025-era curl walkthrough works as written', async (t) => {
  const { stdout } = await runBlock(t, 'notifications/initialized', 'bash');
  const lines = stdout.split('\n');
  t.match(lines[0], /^session: [\x21-\x7e]{20,}$/, 'a session id was captured');
  t.equal(lines[1], '202', 'notifications/initialized: 202');
  t.match(stdout, /"name":"get_sources"/, 'tools/list');
  t.match(stdout, /Slug: bitcoin-node-setup/, 'get_sources found the category');
  t.match(stdout, /\n?200\n?$/, 'DELETE: 200');
});

t.test('README: the 2026-07-28 curl examples work as written', async (t) => {
  const { stdout } = await runBlock(t, 'server/discover');
  const [discover, call] = stdout.split('\n').filter(Boolean).join('').split('}{"jsonrpc"');
  t.match(discover, /"supportedVersions":\["2026-07-28"/);
  t.match(call, /"resultType":"complete"/);
  t.match(call, /Slug: rust-learning/);
});

t.test('README: "Verify a registry" works with our CLI and with openssl alone', async (t) => {
  const cli = await runBlock(t, 'npx three-good-sources verify', 'sh', true);
  t.match(cli.stdout, new RegExp(`^OK registry 1\\.0\\.0 from .* is signed by ${TEST_PUBLIC_KEY}`));
  const openssl = await runBlock(t, 'openssl pkeyutl');
  t.match(openssl.stdout, /Signature Verified Successfully/);
  const digest = /^([0-9a-f]{64}) {2}registry\.signed\.json$/m.exec(openssl.stdout)?.[1];
  const doc = JSON.parse(await readFile(join(openssl.cwd, 'signature.json'), 'utf8'));
  t.equal(digest, doc.sha256, 'sha256sum equals the published digest');
});
