import { execFile, spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ROOT, TEST_PUBLIC_KEY, build } from '../helpers/build.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
// The README and the documents it links to (docs/): every example in them runs here.
const DOCS = ['README.md', 'docs/agents.md', 'docs/curators.md', 'docs/operators.md', 'docs/evaluation.md', 'docs/performance.md'];
const README = (await Promise.all(DOCS.map((file) => readFile(join(ROOT, file), 'utf8')))).join('\n');
const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const block = (marker: string): string => {
  const found = blocks.find((b) => b.includes(marker));
  if (found === undefined) throw new Error(`no sh block in README.md contains ${marker}`);
  return found;
};

/** Runs a README block as written, against our test server instead of 127.0.0.1:3000. */
async function runBlock (t: { teardown(fn: () => unknown): void }, marker: string, shell = 'sh', inProject = false) {
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
  // Issue 24, item 16: each reply on a line of its own (steps 3 and 4 printed none before).
  t.match(lines[2], /^\{"jsonrpc":"2\.0","id":2,"result":\{"tools":/, 'tools/list on its own line');
  t.match(lines[3], /^\{"jsonrpc":"2\.0","id":3,"result":/, 'get_sources on the next');
  t.equal(lines[4], '200', 'and the DELETE status on the last');
  // Issue 33, item 13: the text the README says step 4 answers is the text it answers, line for line (but "..." and the key).
  const shown = /Step 4 answers with a JSON-RPC result whose text reads:\n\n```text\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
  const text = (JSON.parse(lines[3]!) as { result: { content: { text: string }[] } }).result.content[0]!.text.split('\n');
  const expected = shown.trimEnd().split('\n');
  t.ok(expected.length > 8, 'the README shows the answer');
  for (const [i, line] of expected.entries()) {
    if (line.includes('...')) t.ok(text[i]!.startsWith(line.slice(0, line.indexOf('...')).trimEnd()), `line ${i + 1}: ${line}`);
    else if (line.includes("<the curator's z-base-32 key>")) t.match(text[i], /^Curator: .* \(public key: [a-z0-9]{52}/, `line ${i + 1}: the curator line`);
    else t.equal(text[i], line, `line ${i + 1}`);
  }
});

t.test("README: the client configuration entry is the page's, for the same address (issue 24, item 16)", async (t) => {
  const entry = /under their MCP servers list[^\n]*\n\n```json\n([\s\S]*?)```/.exec(README)?.[1];
  t.ok(entry, 'the README shows the entry');
  const app = await build(t);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const page = (await (await fetch(`${address}/`)).text()).replaceAll('&quot;', '"');
  const shown = JSON.stringify(JSON.parse(entry!.replaceAll('http://127.0.0.1:3000', address)), null, 2);
  t.ok(page.includes(shown), 'the page shows the same entry, with its address');
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

const env = { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` };
const shell = (script: string) => run('sh', ['-e', '-c', script], { cwd: ROOT, env, timeout: 60_000 });

/**
 * Starts a README block that runs `npm start` (npm_config_ignore_scripts skips its prestart
 * build: npm test built already) on a free port unless the block names one, and resolves once
 * the start-up line says how the registry is signed. Killed, with npm and sh, when the test ends.
 */
async function startBlock (t: { teardown(fn: () => unknown): void }, script: string) {
  const server = spawn('sh', ['-c', script], { cwd: ROOT, env: { ...env, PORT: '0', npm_config_ignore_scripts: 'true' }, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  t.teardown(() => process.kill(-server.pid!, 'SIGKILL'));
  let log = '';
  const address = await new Promise<string>((resolve) =>
    server.stderr!.on('data', (d) => {
      log += d;
      // The start-up line, which follows "Server listening", says how the registry is signed.
      const m = /"address":"(http:\/\/127\.0\.0\.1:\d+)".*"signing":/.exec(log);
      if (m) resolve(m[1]!);
    })
  );
  return { address, log: () => log };
}

t.test('README: the production path (keygen, sign, sign again, serve with the public key only, verify --known) works as written', async (t) => {
  const folder = join(ROOT, 'curation');
  t.teardown(() => Promise.all([rm(folder, { recursive: true, force: true }), rm(join(ROOT, 'known-heads.json'), { force: true })]));
  await rm(folder, { recursive: true, force: true });

  const once = await shell(block('mkdir -p curation'));
  t.match(once.stdout, /^first signed version:$/m);
  const change = await shell(block('npx three-good-sources diff'));
  t.match(change.stdout, /registry\.signed\.json \(1\.0\.0\) -> registry\.json \(1\.1\.0\): no changes/, 'diff: only the version');
  t.match(change.stdout, /^signed registry 1\.1\.0 /m);
  const pubkey = (await readFile(join(folder, 'curator.pub'), 'utf8')).trim();

  const { address } = await startBlock(t, block('CURATOR_PUBKEY=$(cat curation/curator.pub)'));
  const verify = await shell(block('--known known-heads.json').replaceAll('http://127.0.0.1:3000', address));
  t.match(verify.stdout, new RegExp(`^OK registry 1\\.1\\.0 from .* is signed by ${pubkey}, with a verified history of 2 entries .*first check: remembered 1\\.1\\.0 in known-heads\\.json`));
});

t.test('README: two servers on one machine, one endorsing the other, answer get_federated_sources', async (t) => {
  const folder = join(ROOT, 'demo');
  t.teardown(() => rm(folder, { recursive: true, force: true }));
  await rm(folder, { recursive: true, force: true });
  // The README's peer port, 3001, becomes a free one here.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = String((probe.address() as AddressInfo).port);
  await new Promise((resolve) => probe.close(resolve));
  const onPort = (script: string) => script.replaceAll('3001', port);

  await shell(onPort(block('cp examples/peer-registry.json')));
  const peer = await startBlock(t, onPort(block('PORT=3001 REGISTRY_PATH=demo/peer.json')));
  t.match(peer.log(), /"signing":\{"mode":"curator"/, 'the peer serves a curator-signed registry');
  const main = await startBlock(t, block('FEDERATION_ALLOW_LOOPBACK_HTTP=true REGISTRY_PATH=demo/main.json'));
  await waitFor(async () => (await (await fetch(`${main.address}/federation/peers`)).text()).includes('"fresh"'));
  const { stdout } = await shell(block('curl -s http://127.0.0.1:3000/federation/peers').replaceAll('http://127.0.0.1:3000', main.address));
  t.match(stdout, /"state":"fresh","registryVersion":"1\.0\.0"/);
  t.match(stdout, /"trust":"endorsed"/);
  // The peer's own words, quoted (JSON-escaped here, inside the reply).
  t.match(stdout, /Category \(as the peer words it\): \\"Amateur Radio Licensing\\" \(amateur-radio-licensing\)/);
});

t.test('README: the curator commands to see what the matcher does work as written', async (t) => {
  const query = await shell(block('check registry.json --query'));
  t.match(query.stdout, /^match: bitcoin-node-setup \(score/m);
  t.match(query.stdout, /nodde \(read as node\)/);
  // Outside coverage (env -u): npm run eval compiles our sources with tsx, whose source maps place
  // functions elsewhere than tap's compiler does, and coverage then counts each twice, once never run.
  const scored = await run('env', ['-u', 'NODE_OPTIONS', '-u', 'NODE_V8_COVERAGE', 'sh', '-e', '-c', block('npm run eval -- --registry')], { cwd: ROOT, env, timeout: 60_000 });
  t.match(scored.stdout, /== test\/fixtures\/queries-untouched\.json on registry\.json: 215 queries/);
  t.match(scored.stdout, /^top-1 accuracy on-topic +\d+\.\d%/m);
});

t.test('README: the page search example prints the category get_sources names', async (t) => {
  const { stdout } = await runBlock(t, '?q=learn+rust+programming');
  t.equal(stdout.trim(), '<strong>Rust Learning</strong>');
});

t.test('README: the server card example works as written (issue 24, item 17)', async (t) => {
  const { stdout } = await runBlock(t, '/.well-known/mcp/server-card.json');
  const card = JSON.parse(stdout);
  t.match(card, { name: 'io.github.three-good-sources/three-good-sources', remotes: [{ type: 'streamable-http', url: /^http:\/\/127\.0\.0\.1:\d+\/mcp$/ }] });
});

t.test('README: the demand report example works as written (issue 25)', async (t) => {
  const token = 'readme-demand-token-0123456789';
  const app = await build(t, { demandToken: token });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const script = block('three-good-sources demand').replaceAll('http://127.0.0.1:3000', address).replace('the-DEMAND_TOKEN-of-the-server', token);
  // In the project folder, where npx finds our command (as a curator who ran npm install there).
  const cwd = ROOT;
  t.teardown(() => rm(join(ROOT, 'demand.token'), { force: true }));
  const { stdout } = await run('sh', ['-e', '-c', script], { cwd, env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` }, timeout: 60_000 });
  t.match(stdout, /^Demand from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d \(the last 30 days; counts kept in memory\)\./);
  t.match(stdout, /No requests were recorded in this window\./);
  t.equal((await readFile(join(cwd, 'demand.token'), 'utf8')).trim(), token, 'the token went into the file, not the command line');
});
