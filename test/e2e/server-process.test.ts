import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ROOT, TEST_PUBLIC_KEY } from '../helpers/build.js';
import { start as startProcess, until } from '../helpers/process.js';
import { redisSkip, startRedis } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);

// A production build, as the Dockerfile makes it: what its CMD names must exist.
await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT });
const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
// node, its flags, then the entry: the processes below start as the CMD says.
const entry = join(ROOT, cmd.at(-1) ?? 'missing');
const nodeFlags = cmd.slice(1, -1);

const SEED = '07'.repeat(32);
const start = (env: Record<string, string>) => startProcess(env, entry, nodeFlags);

t.test('the Dockerfile runs node on the built entry, as a non-root user, with a health check', async (t) => {
  t.same(cmd.slice(0, 1), ['node'], 'exec-form CMD runs node itself');
  t.ok(existsSync(entry), `${cmd.at(-1)} exists after a production build`);
  t.ok(nodeFlags.every((flag) => flag.startsWith('--')), `between node and the entry, only node's own flags (${nodeFlags.join(' ')})`);
  t.match(dockerfile, /^FROM node:(22|24)-/m, 'a supported Node');
  t.match(dockerfile, /npm ci/);
  t.match(dockerfile, /npm prune --omit=dev/);
  t.match(dockerfile, /^USER node$/m);
  t.match(dockerfile, /HOST=0\.0\.0\.0/);
  // Issue 24, item 15: keys and a curator's local work never enter the build context.
  const ignored = (await readFile(join(ROOT, '.dockerignore'), 'utf8')).split('\n');
  for (const pattern of ['*.key', '*.pem', '.env', '.env.*', 'curation', 'demo', 'known-heads.json']) t.ok(ignored.includes(pattern), `.dockerignore leaves out ${pattern}`);
  t.match(dockerfile, /^HEALTHCHECK .*\n?.*\/health/m);
});

t.test('the built server serves, logs only to stderr, and exits 0 on SIGTERM', async (t) => {
  const server = start({ PORT: '0', LOG_LEVEL: 'info' });
  const address = await server.address;
  const health = await fetch(`${address}/health`);
  t.equal(health.status, 200);
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  t.same(await health.json(), { status: 'ok', serverVersion: version, registryVersion: '1.0.0', categories: 10 });
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

t.test('several invalid variables: every one is named, a line each, no secret repeated', async (t) => {
  const server = start({ PORT: 'abc', LOG_LEVEL: 'loud', REDIS_URL: 'http://:hunter2@cache:6379' });
  t.equal(await server.code, 1);
  t.equal(
    server.stderr(),
    [
      'three-good-sources: invalid configuration: PORT must be integer (got "abc")',
      'three-good-sources: invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      'three-good-sources: invalid configuration: REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379',
      '',
    ].join('\n')
  );
});

t.test('empty variables, as compose files and systemd units leave them, take their defaults', async (t) => {
  // Before, env-schema also read process.env: LOG_LEVEL= stopped start-up with "must be one of".
  const server = start({ PORT: '0', HOST: ' ', LOG_LEVEL: '', MATCH_THRESHOLD: '', ALLOWED_ORIGINS: '', REDIS_URL: '', CURATOR_SECRET_KEY: SEED });
  const address = await Promise.race([server.address, server.code.then(() => 'exited')]);
  t.match(address, /^http:\/\/127\.0\.0\.1:\d+$/, server.stderr());
  server.kill('SIGTERM');
  t.equal(await server.code, 0);
});

t.test('the start-up line: what is served, how it is signed, where sessions live, on which address, by which pid', async (t) => {
  const server = start({ PORT: '0', CURATOR_SECRET_KEY: SEED });
  const address = await server.address;
  await until(() => server.logs().some((l) => l.address !== undefined));
  const line = server.logs().find((l) => l.address !== undefined);
  t.match(line, {
    level: 30,
    pid: server.pid,
    address,
    registry: { path: join(ROOT, 'registry.json'), version: '1.0.0', categories: 10 },
    signing: { mode: 'server', publicKey: TEST_PUBLIC_KEY },
    sessionStore: { kind: 'memory' },
    msg: `serving registry 1.0.0 (10 categories) on ${address}, signed here with the curator key ${TEST_PUBLIC_KEY}, sessions in memory`,
  });
  server.kill('SIGTERM');
  t.equal(await server.code, 0);
});

t.test('the start-up line names the Redis host and port, never its password', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const { host } = new URL(redis.url);
  // Redis's default user takes any password until one is set: this one only has to stay unseen.
  const server = start({ PORT: '0', CURATOR_SECRET_KEY: SEED, REDIS_URL: `redis://default:hunter2@${host}` });
  const address = await Promise.race([server.address, server.code.then(() => 'exited')]);
  t.not(address, 'exited', server.stderr());
  await until(() => server.logs().some((l) => l.address !== undefined));
  const line = server.logs().find((l) => l.address !== undefined);
  t.same(line?.sessionStore, { kind: 'redis', address: host });
  t.match(line?.msg, new RegExp(`sessions in redis at ${host}$`));
  server.kill('SIGTERM');
  t.equal(await server.code, 0);
  t.notMatch(server.stderr(), /hunter2/);
});

t.test('a port already taken: exit 1 with one line naming the address, no stack trace', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const { port } = taken.address() as AddressInfo;
  const server = start({ PORT: String(port), CURATOR_SECRET_KEY: SEED });
  t.equal(await server.code, 1);
  t.equal(server.stderr(), `three-good-sources: cannot listen on 127.0.0.1:${port}: address already in use (EADDRINUSE)\n`);
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
  // Issue 24, item 6: it points to the production path (the curator signs; the server holds the public key only).
  t.match(server.stderr(), /In production the curator signs offline \(npx three-good-sources keygen, then sign\) and the server gets only the public key: set CURATOR_PUBKEY/);
  t.notMatch(server.stderr(), /Set CURATOR_SECRET_KEY/, 'no longer advises putting the secret on the server');
  await until(() => server.logs().some((l) => l.address !== undefined));
  const line = server.logs().find((l) => l.address !== undefined);
  t.equal((line?.signing as { mode?: string } | undefined)?.mode, 'ephemeral', 'the start-up line says which key signs');
  t.match(line?.msg, /signed with an EPHEMERAL key \(development: no curator signed it\) [a-z0-9]{52},/);
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

t.test('SIGHUP reloads the registry without a restart, sent as the README says with PID_FILE; a bad file keeps the old one', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), '3gs-hup-'));
  const file = join(dir, 'registry.json');
  const pidFile = join(dir, 'server.pid');
  const data = JSON.parse(await readFile(join(ROOT, 'registry.json'), 'utf8'));
  await writeFile(file, JSON.stringify(data));
  const server = start({ PORT: '0', REGISTRY_PATH: file, CURATOR_SECRET_KEY: SEED, PID_FILE: pidFile });
  const address = await server.address;
  const version = async () => (await (await fetch(`${address}/registry/signature`)).json()).version as string;
  t.equal(await version(), '1.0.0');
  await until(() => existsSync(pidFile));
  t.equal(await readFile(pidFile, 'utf8'), `${server.pid}\n`, 'PID_FILE names the node process');

  await writeFile(file, JSON.stringify({ ...data, version: '1.0.1' }));
  const readme = await readFile(join(ROOT, 'docs', 'operators.md'), 'utf8');
  const reload = /```sh\n(kill -HUP [^\n]*)\n```/.exec(readme)?.[1] ?? 'false';
  await run('sh', ['-c', reload], { env: { PATH: process.env.PATH ?? '', PID_FILE: pidFile } });
  await waitFor(async () => (await version()) === '1.0.1');
  t.equal(await version(), '1.0.1', 'the new registry is served');
  t.match(server.stderr(), /"msg":"registry reloaded"/);

  await writeFile(file, '{"version": "broken"');
  server.kill('SIGHUP');
  await waitFor(() => server.stderr().includes('registry reload failed'));
  t.match(server.stderr(), /"level":50.*not valid JSON.*"msg":"registry reload failed; still serving the previous registry"/);
  t.equal(await version(), '1.0.1', 'still the previous registry');
  server.kill('SIGTERM');
  t.equal(await server.code, 0);
  t.notOk(existsSync(pidFile), 'PID_FILE is removed at exit');
});

t.test('a PID_FILE that cannot be written: exit 1, and the line that says so comes last, after the log lines before it (issue 33, item 11)', async (t) => {
  const pidFile = join(await mkdtemp(join(tmpdir(), '3gs-pid-')), 'no-such-folder', 'server.pid');
  const server = start({ PORT: '0', CURATOR_SECRET_KEY: SEED, PID_FILE: pidFile });
  t.equal(await server.code, 1);
  const lines = server.stderr().trimEnd().split('\n');
  t.equal(lines.at(-1), `three-good-sources: cannot write PID_FILE ${pidFile} (ENOENT)`, 'the reason is the last line');
  t.ok(lines.slice(0, -1).some((line) => line.includes('Server listening at')), 'the log lines written before it come before it');
});

t.test('REDIS_URL pointing at nothing: exit 1 with one line that names the host, not the password', async (t) => {
  const server = start({ REDIS_URL: 'redis://:hunter2@127.0.0.1:1', CURATOR_SECRET_KEY: '07'.repeat(32) });
  t.equal(await server.code, 1);
  t.equal(server.stderr(), 'three-good-sources: cannot connect to Redis at 127.0.0.1:1 (REDIS_URL): ECONNREFUSED\n');
});

const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

/**
 * A POST /mcp on a real socket whose body is held back after its first bytes. `taken` resolves
 * once the server has the request in hand (it answers 100 Continue); `finish` sends the rest.
 */
function heldRequest (address: string) {
  const port = Number(new URL(address).port);
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (d) => (received += d));
  socket.on('error', () => {});
  socket.write(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json\r\n` +
      `Expect: 100-continue\r\nContent-Length: ${PING.length}\r\n\r\n${PING.slice(0, 10)}`
  );
  return {
    taken: until(() => received.includes('100 Continue')).then(() => received.includes('100 Continue')),
    finish: async (): Promise<string> => {
      socket.write(PING.slice(10));
      await until(() => received.includes('"result"'));
      return received;
    },
  };
}

t.test('SIGTERM: a request in flight still gets its answer, then the process exits 0', async (t) => {
  const server = start({ PORT: '0', CURATOR_SECRET_KEY: SEED, SHUTDOWN_GRACE_MS: '10000' });
  const address = await server.address;
  const held = heldRequest(address);
  t.ok(await held.taken, 'the server has the request');
  server.kill('SIGTERM');
  await until(() => server.stderr().includes('"msg":"shutting down"'));
  t.match(server.stderr(), /"msg":"shutting down"/, 'shutdown has begun');
  const refused = await waitFor(() => fetch(`${address}/health`).then(() => false, () => true));
  t.ok(refused, 'no new connection is accepted');
  const answer = await held.finish();
  t.match(answer, /HTTP\/1\.1 200 OK[\s\S]*\{"jsonrpc":"2\.0","id":1,"result":\{\}\}/, 'the request in flight is answered');
  t.equal(await server.code, 0);
});

t.test('SIGTERM: past SHUTDOWN_GRACE_MS the process exits anyway, with 1, and says so', async (t) => {
  const server = start({ PORT: '0', CURATOR_SECRET_KEY: SEED, SHUTDOWN_GRACE_MS: '500' });
  const address = await server.address;
  const held = heldRequest(address);
  t.ok(await held.taken, 'the server has the request, whose body never comes');
  const signalled = Date.now();
  server.kill('SIGTERM');
  t.equal(await server.code, 1);
  const took = Date.now() - signalled;
  t.ok(took >= 450 && took < 5000, `about the grace delay after the signal (${took} ms)`);
  t.match(server.logs().at(-1), { level: 50, graceMs: 500, msg: 'shutdown grace period over: exiting with requests still in flight' });
});

// Issue 24, item 11. The machines here ship Node 20 as /usr/bin/node (CI puts Node 22 first on PATH).
const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find((bin) => {
  try {
    const [major = 99, minor = 0] = execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim().split('.').map(Number);
    return major < 22 || (major === 22 && minor < 12);
  } catch {
    return false;
  }
});
t.test('on a Node.js older than 22.12 the server and the CLI refuse to start, with one line naming the supported versions', { skip: oldNode === undefined ? 'needs a Node.js older than 22.12 on this machine (none at /usr/bin/node or /usr/local/bin/node)' : false }, async (t) => {
  // scripts/build.mjs is what npm start and npm test run first (issue 33, item 13).
  for (const script of [entry, join(ROOT, 'dist/src/cli/main.js'), join(ROOT, 'scripts/build.mjs')]) {
    // Through env -u: tap's process hooks and V8 coverage would follow the child into a runtime we
    // refuse, whose coverage ranges (another V8) merge with Node 22's as functions never run.
    const child = spawnSync('env', ['-u', 'NODE_OPTIONS', '-u', 'NODE_V8_COVERAGE', oldNode!, script, ...(script === entry ? [] : ['--help'])], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: '0' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    t.equal(child.status, 1, `${script}: exit 1`);
    t.match(child.stderr, /^three-good-sources: needs Node\.js 22 \(22\.12 or later\) or 24; this is Node\.js \d+\.\d+\.\d+\n$/, `${script}: one line`);
    t.equal(child.stdout, '', `${script}: nothing on stdout`);
  }
});
