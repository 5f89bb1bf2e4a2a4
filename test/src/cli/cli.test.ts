import { createServer, type RequestListener } from 'node:http';
import { stat, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { run } from '../../../src/cli/run.js';
import { keyFromSeed, parseSeed } from '../../../src/provenance/keys.js';
import { SHIPPED_REGISTRY, TEST_PUBLIC_KEY, build, otherPublicKey } from '../../helpers/build.js';

/** Runs the CLI in-process and returns its exit code and what it printed. */
async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A real listening HTTP server with a handler of our choosing, for replies a healthy 3GS never gives. */
async function fakeServer(t: { teardown(fn: () => unknown): void }, handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const dir = await mkdtemp(join(tmpdir(), '3gs-cli-'));

t.test('help and unknown commands', async (t) => {
  const help = await cli('--help');
  t.equal(help.code, 0);
  t.match(help.out, /keygen[\s\S]*verify[\s\S]*check/);
  t.equal((await cli()).code, 1, 'no command');
  const unknown = await cli('sign');
  t.equal(unknown.code, 1);
  t.match(unknown.err, /unknown command sign/);
});

t.test('keygen writes a 0600 secret key file and prints its public key', async (t) => {
  const file = join(dir, 'curator.key');
  const res = await cli('keygen', '--out', file);
  t.equal(res.code, 0);
  const seed = parseSeed((await readFile(file, 'utf8')).trim());
  t.ok(seed, 'the file holds 64 hex characters');
  t.equal((await stat(file)).mode & 0o777, 0o600, 'mode 0600');
  t.match(res.out, `public key: ${keyFromSeed(seed!).publicKey}`);
  t.match(res.out, `CURATOR_KEY_FILE=${file}`);
  const again = await cli('keygen', '--out', file);
  t.equal(again.code, 1, 'never overwrites a key');
  t.match(again.err, /already exists/);
  t.equal((await cli('keygen', 'extra')).code, 1);
  t.match((await cli('keygen', '--out', join(dir, 'missing-folder', 'k'))).err, /cannot write .* \(ENOENT\)/);
});

t.test('check: the shipped registry passes with no warnings', async (t) => {
  const res = await cli('check', SHIPPED_REGISTRY);
  t.equal(res.code, 0);
  t.match(res.out, /^OK .*registry\.json: 10 categories, 0 warnings$/m);
});

t.test('check: errors exit 1, warnings exit 0 unless --strict', async (t) => {
  const data = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8'));
  const write = async (name: string, value: unknown) => {
    const file = join(dir, name);
    await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };

  const broken = structuredClone(data);
  broken.categories['rust-learning'].sources.pop();
  const invalid = await cli('check', await write('invalid.json', broken));
  t.equal(invalid.code, 1);
  t.match(invalid.err, /error categories\.rust-learning\.sources: must have exactly 3 items/);
  t.match(invalid.err, /FAIL .*: 1 problem; the server would refuse to start/);

  const selfEndorsed = structuredClone(data);
  const curator = otherPublicKey();
  selfEndorsed.curator.pubkey = curator;
  selfEndorsed.endorsements = [{ pubkey: curator, url: 'https://me.example/', name: 'Me', since: '2026-01-01' }];
  t.match((await cli('check', await write('self.json', selfEndorsed))).err, /endorsements\.0\.pubkey: a curator cannot endorse itself/);
  const badCurator = structuredClone(data);
  badCurator.curator.pubkey = 'not a key';
  t.match((await cli('check', await write('bad-curator.json', badCurator))).err, /curator\.pubkey: must be a z-base-32/);

  const lintable = structuredClone(data);
  lintable.categories['threat-modeling'].sources[2].url = data.categories['linux-hardening'].sources[1].url;
  lintable.categories['rust-learning'].queryPatterns.push('how to run a bitcoin full node');
  lintable.categories['rust-learning'].queryPatterns.push('a good guide for beginners');
  const file = await write('lint.json', lintable);
  const warned = await cli('check', file);
  t.equal(warned.code, 0, 'warnings alone pass');
  t.match(warned.out, /warning categories\.threat-modeling\.sources\.2\.url: also a source of linux-hardening/);
  t.match(warned.out, /warning categories\.rust-learning\.queryPatterns\.\d+: "how to run a bitcoin full node" matches bitcoin-node-setup better/);
  t.match(warned.out, /"a good guide for beginners" matches no category/);
  t.match(warned.out, /: 10 categories, 3 warnings$/m);
  t.equal((await cli('check', file, '--strict')).code, 1, '--strict fails on warnings');

  t.match((await cli('check', join(dir, 'nope.json'))).err, /cannot read the file \(ENOENT\)/);
  t.match((await cli('check', await write('garbage.json', '{nope'))).err, /not valid JSON/);
  t.equal((await cli('check')).code, 1, 'usage');
});

t.test('verify: OK against a live server with the right key', async (t) => {
  const app = await build(t);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  for (const url of [address, `${address}/`, `${address}/registry`, `${address}/registry/signature`, `${address}/mcp`]) {
    const res = await cli('verify', url, '--pubkey', TEST_PUBLIC_KEY);
    t.equal(res.code, 0, url);
    t.match(res.out, new RegExp(`^OK registry 1\\.0\\.0 from ${address}/ is signed by ${TEST_PUBLIC_KEY} \\(sha256 [0-9a-f]{64}\\)$`));
  }
  const other = otherPublicKey();
  const wrong = await cli('verify', address, '--pubkey', other);
  t.equal(wrong.code, 1);
  t.equal(wrong.err, `FAIL different key: the server signs with ${TEST_PUBLIC_KEY}, not ${other}`);
});

t.test('verify: each failure exits 1 and names itself', async (t) => {
  const app = await build(t);
  const registry = (await app.inject({ method: 'GET', url: '/registry' })).rawPayload;
  const doc = (await app.inject({ method: 'GET', url: '/registry/signature' })).json();
  const changed = Buffer.from(registry.toString().replace('Rust Learning', 'Rust Learninq'));
  const serve = (body: Buffer | string, sig: unknown, status = 200): RequestListener => (req, res) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(req.url === '/registry/signature' ? (typeof sig === 'string' ? sig : JSON.stringify(sig)) : body);
  };
  const { createHash } = await import('node:crypto');
  const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  const cases: [string, RequestListener, RegExp][] = [
    ['digest mismatch', serve(changed, doc), /^FAIL digest mismatch: \/registry hashes to [0-9a-f]{64}, the signature document says [0-9a-f]{64}$/],
    ['bad signature', serve(changed, { ...doc, sha256: digest(changed) }), /^FAIL bad signature: the registry is not signed by /],
    ['not canonical', serve(Buffer.from(JSON.stringify(JSON.parse(registry.toString()), null, 2)), { ...doc, sha256: digest(Buffer.from(JSON.stringify(JSON.parse(registry.toString()), null, 2))) }), /^FAIL malformed reply: \/registry is not in RFC 8785 canonical form$/],
    ['an HTTP error', serve(registry, doc, 500), /^FAIL malformed reply: .* answered HTTP 500$/],
    ['a signature that is not JSON', serve(registry, '<html>'), /^FAIL malformed reply: .*\/registry\/signature is not JSON$/],
    ['a signature without fields', serve(registry, { publicKey: TEST_PUBLIC_KEY }), /^FAIL malformed reply: .* lacks publicKey, signature, sha256 or version$/],
    ['another algorithm', serve(registry, { ...doc, algorithm: 'rsa' }), /^FAIL malformed reply: expected algorithm ed25519 and canonicalization RFC8785$/],
    ['a registry that is not JSON', serve(Buffer.from('{oops'), { ...doc, sha256: digest(Buffer.from('{oops')) }), /^FAIL malformed reply: .*\/registry is not JSON$/],
  ];
  for (const [what, handler, expected] of cases) {
    const url = await fakeServer(t, handler);
    const res = await cli('verify', url, '--pubkey', TEST_PUBLIC_KEY);
    t.equal(res.code, 1, `${what}: exit 1`);
    t.match(res.err, expected, what);
  }

  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const freePort = (gone.address() as AddressInfo).port;
  await new Promise((resolve) => gone.close(resolve));
  const unreachable = await cli('verify', `http://127.0.0.1:${freePort}`, '--pubkey', TEST_PUBLIC_KEY);
  t.equal(unreachable.code, 1);
  t.match(unreachable.err, new RegExp(`^FAIL unreachable: http://127\\.0\\.0\\.1:${freePort}/registry \\(ECONNREFUSED\\)$`));

  t.match((await cli('verify', 'ftp://x', '--pubkey', TEST_PUBLIC_KEY)).err, /^FAIL not an http\(s\) URL/);
  t.match((await cli('verify', 'not a url', '--pubkey', TEST_PUBLIC_KEY)).err, /^FAIL not a URL/);
  t.match((await cli('verify', 'http://127.0.0.1:1', '--pubkey', 'short')).err, /^FAIL bad --pubkey/);
  t.match((await cli('verify', 'http://127.0.0.1:1')).err, /^usage: three-good-sources verify/);
});
