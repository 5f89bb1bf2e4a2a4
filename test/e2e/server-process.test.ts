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
