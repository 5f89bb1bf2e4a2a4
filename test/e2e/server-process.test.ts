import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ROOT } from '../helpers/build.js';

const run = promisify(execFile);

// A production build, as the Dockerfile makes it: what its CMD names must exist.
await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT });
const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
const entry = join(ROOT, cmd[1] ?? 'missing');

interface Started {
  code: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
  kill: (signal: NodeJS.Signals) => void;
  address: Promise<string>;
}

function start(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [entry], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let resolveAddress: (a: string) => void = () => {};
  const address = new Promise<string>((r) => (resolveAddress = r));
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => {
    err += d;
    const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
    if (m) resolveAddress(m[1]!);
  });
  return {
    code: new Promise((r) => child.on('exit', (code) => r(code))),
    stdout: () => out,
    stderr: () => err,
    kill: (s) => child.kill(s),
    address,
  };
}

t.test('the Dockerfile runs node on the built entry, as a non-root user, with a health check', async (t) => {
  t.same(cmd.slice(0, 1), ['node'], 'exec-form CMD runs node itself');
  t.ok(existsSync(entry), `${cmd[1]} exists after a production build`);
  t.match(dockerfile, /^FROM node:22/m);
  t.match(dockerfile, /npm ci/);
  t.match(dockerfile, /npm prune --omit=dev/);
  t.match(dockerfile, /^USER node$/m);
  t.match(dockerfile, /HOST=0\.0\.0\.0/);
  t.match(dockerfile, /^HEALTHCHECK .*\n?.*\/health/m);
});

t.test('the built server serves, logs only to stderr, and exits 0 on SIGTERM', async (t) => {
  const server = start({ PORT: '0', LOG_LEVEL: 'info' });
  const address = await server.address;
  const health = await fetch(`${address}/health`);
  t.equal(health.status, 200);
  t.equal((await health.json()).categories, 10);
  server.kill('SIGTERM');
  t.equal(await server.code, 0, 'graceful exit');
  t.equal(server.stdout(), '', 'stdout stays empty');
  t.match(server.stderr(), /"msg":"request"/, 'request lines went to stderr');
  t.match(server.stderr(), /"msg":"shutting down"/, 'the last line is flushed before the process exits');
});

t.test('an invalid variable stops start-up with exit 1 and one clear line', async (t) => {
  const server = start({ PORT: 'abc' });
  t.equal(await server.code, 1);
  t.equal(server.stderr(), 'three-good-sources: invalid configuration: PORT must be integer (got "abc")\n');
});

t.test('an invalid registry stops start-up with exit 1, naming the path and the rule', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), '3gs-start-'));
  const file = join(dir, 'registry.json');
  const data = JSON.parse(await readFile(join(ROOT, 'registry.json'), 'utf8'));
  data.categories['rust-learning'].sources.pop();
  await writeFile(file, JSON.stringify(data));
  const server = start({ REGISTRY_PATH: file });
  t.equal(await server.code, 1);
  t.match(server.stderr(), /categories\.rust-learning\.sources: must have exactly 3 items/);
  t.notMatch(server.stderr(), /\n\s+at /, 'no stack trace');
});

t.test('the curator key: keygen through the package bin, then a server that signs with it', async (t) => {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  const bin = join(ROOT, pkg.bin['three-good-sources']);
  const dir = await mkdtemp(join(tmpdir(), '3gs-key-'));
  const keyFile = join(dir, 'curator.key');
  const { stdout } = await run(process.execPath, [bin, 'keygen', '--out', keyFile]);
  const publicKey = /^public key: (\S+)$/m.exec(stdout)?.[1];
  t.match(publicKey, /^[ybndrfg8ejkmcpqxot1uwisza345h769]{52}$/);

  const server = start({ PORT: '0', CURATOR_KEY_FILE: keyFile, LOG_LEVEL: 'info' });
  const address = await Promise.race([server.address, server.code.then(() => 'exited')]);
  t.not(address, 'exited', server.stderr());
  const sig = await (await fetch(`${address}/registry/signature`)).json();
  t.equal(sig.publicKey, publicKey, 'the server signs with the configured key');
  t.notMatch(server.stderr(), /NO CURATOR KEY/, 'no ephemeral-key warning');
  const secret = (await readFile(keyFile, 'utf8')).trim();
  t.notMatch(server.stderr(), secret, 'the secret never reaches the logs');
  server.kill('SIGTERM');
  t.equal(await server.code, 0);
});

t.test('no curator key: an ephemeral one, with a loud warning', async (t) => {
  const server = start({ PORT: '0', LOG_LEVEL: 'info' });
  await Promise.race([server.address, server.code]);
  t.match(server.stderr(), /"level":40.*NO CURATOR KEY CONFIGURED: signing the registry with an ephemeral key/);
  server.kill('SIGTERM');
  t.equal(await server.code, 0);
});

t.test('a malformed key or a registry under another name stops start-up', async (t) => {
  const bad = start({ CURATOR_SECRET_KEY: 'deadbeef-not-a-key' });
  t.equal(await bad.code, 1);
  t.equal(bad.stderr(), 'three-good-sources: invalid configuration: CURATOR_SECRET_KEY must be 64 hexadecimal characters (the 32-byte Ed25519 seed that keygen writes)\n');
  t.notMatch(bad.stderr(), /deadbeef/, 'the bad secret is not echoed');

  const dir = await mkdtemp(join(tmpdir(), '3gs-other-'));
  const file = join(dir, 'registry.json');
  const data = JSON.parse(await readFile(join(ROOT, 'registry.json'), 'utf8'));
  data.curator.pubkey = 'yyyoryarywdyqnyjbefoadeqbhebnrounoktcfaadrpbs8y7daxo';
  await writeFile(file, JSON.stringify(data));
  const other = start({ REGISTRY_PATH: file, CURATOR_SECRET_KEY: '07'.repeat(32) });
  t.equal(await other.code, 1);
  t.match(other.stderr(), /curator\.pubkey: names yyyoryarywdyqnyjbefoadeqbhebnrounoktcfaadrpbs8y7daxo, but this server signs with /);
});

t.test('SIGHUP reloads the registry without a restart; a bad file keeps the old one', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), '3gs-hup-'));
  const file = join(dir, 'registry.json');
  const data = JSON.parse(await readFile(join(ROOT, 'registry.json'), 'utf8'));
  await writeFile(file, JSON.stringify(data));
  const server = start({ PORT: '0', REGISTRY_PATH: file, CURATOR_SECRET_KEY: '07'.repeat(32) });
  const address = await server.address;
  const version = async () => (await (await fetch(`${address}/registry/signature`)).json()).version as string;
  t.equal(await version(), '1.0.0');

  await writeFile(file, JSON.stringify({ ...data, version: '1.0.1' }));
  server.kill('SIGHUP');
  for (let i = 0; i < 50 && (await version()) !== '1.0.1'; i++) await new Promise((r) => setTimeout(r, 100));
  t.equal(await version(), '1.0.1', 'the new registry is served');
  t.match(server.stderr(), /"msg":"registry reloaded"/);

  await writeFile(file, '{"version": "broken"');
  server.kill('SIGHUP');
  for (let i = 0; i < 50 && !server.stderr().includes('registry reload failed'); i++) await new Promise((r) => setTimeout(r, 100));
  t.match(server.stderr(), /"level":50.*not valid JSON.*"msg":"registry reload failed; still serving the previous registry"/);
  t.equal(await version(), '1.0.1', 'still the previous registry');
  server.kill('SIGTERM');
  t.equal(await server.code, 0);
});

t.test('REDIS_URL pointing at nothing: exit 1 with one line that names the host, not the password', async (t) => {
  const server = start({ REDIS_URL: 'redis://:hunter2@127.0.0.1:1', CURATOR_SECRET_KEY: '07'.repeat(32) });
  t.equal(await server.code, 1);
  t.equal(server.stderr(), 'three-good-sources: cannot connect to Redis at 127.0.0.1:1 (REDIS_URL): ECONNREFUSED\n');
});
