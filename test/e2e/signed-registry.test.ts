import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t from 'tap';
import { BASE_URL_PLACEHOLDER, verificationRecipes } from '../../src/provenance/facts.js';
import { otherPublicKey } from '../helpers/build.js';
import { start, until } from '../helpers/process.js';
import { cli, curatorFolder, nextVersion, signedTwice, type CuratorFolder } from '../helpers/signed.js';

const sh = promisify(execFile);

/** A server with no secret at all: only the registry path and, unless told otherwise, the curator's public key. */
async function serve (t: { teardown(fn: () => unknown): void }, folder: CuratorFolder, env: Record<string, string> = { CURATOR_PUBKEY: folder.pubkey }) {
  const server = start({ PORT: '0', REGISTRY_PATH: folder.registry, ...env });
  t.teardown(() => server.kill('SIGKILL'));
  return { server, base: await server.address };
}

/** A start-up that must fail: exit 1 and one line on stderr. */
async function refused (folder: CuratorFolder, env: Record<string, string> = { CURATOR_PUBKEY: folder.pubkey }) {
  const server = start({ PORT: '0', REGISTRY_PATH: folder.registry, ...env });
  const code = await server.code;
  return { code, lines: server.stderr().trim().split('\n') };
}

const health = async (base: string) => ((await (await fetch(`${base}/health`)).json()) as { registryVersion: string }).registryVersion;

t.test('a curator-signed registry is served by a server that holds no secret, its signature byte for byte', async (t) => {
  const folder = await signedTwice();
  for (const env of [{ CURATOR_PUBKEY: folder.pubkey }, {}] as Record<string, string>[]) {
    const { server, base } = await serve(t, folder, env);
    await until(() => server.logs().some((l) => l.signing !== undefined));
    const line = server.logs().find((l) => l.signing !== undefined)!;
    const keySource = env.CURATOR_PUBKEY === undefined ? "the registry's own curator.pubkey" : 'CURATOR_PUBKEY';
    t.same(line.signing, { mode: 'curator', publicKey: folder.pubkey, keySource }, 'the start-up line says the curator signed, and where the key came from');
    t.match(line.msg, `signed by the curator (verified; this server holds no secret key) with ${folder.pubkey}`);
    t.notMatch(server.stderr(), /NO CURATOR KEY/);
    const [registry, signature, history] = await Promise.all(['registry', 'registry/signature', 'registry/history'].map((p) => fetch(`${base}/${p}`)));
    t.same(Buffer.from(await signature!.arrayBuffer()), await readFile(folder.files.signature), '/registry/signature is the curator file, byte for byte');
    t.same(Buffer.from(await history!.arrayBuffer()), await readFile(folder.files.history), '/registry/history is the history file');
    t.same(Buffer.from(await registry!.arrayBuffer()), await readFile(folder.files.signed), '/registry is the bytes the curator signed');
    const etag = registry!.headers.get('etag');
    t.match(etag, /^"[0-9a-f]{64}"$/);
    t.equal(signature!.headers.get('etag'), etag, 'the pair carries one ETag');
    t.equal(history!.headers.get('etag'), `"${createHash('sha256').update(await readFile(folder.files.history)).digest('hex')}"`, 'the history: the hash of its own bytes');
    t.equal((await fetch(`${base}/registry`, { headers: { 'if-none-match': etag! } })).status, 304);
    server.kill('SIGTERM');
    t.equal(await server.code, 0);
  }
});

t.test('openssl alone verifies the served signature against the curator key', async (t) => {
  const folder = await signedTwice();
  const { base } = await serve(t, folder);
  const cwd = await mkdtemp(join(tmpdir(), '3gs-openssl-'));
  const script = verificationRecipes(folder.pubkey).openssl.join('\n').replace(BASE_URL_PLACEHOLDER, base);
  const { stdout } = await sh('sh', ['-e', '-c', script], { cwd });
  t.match(stdout, /Signature Verified Successfully/);
  const doc = JSON.parse(await readFile(folder.files.signature, 'utf8'));
  t.match(stdout, `${doc.sha256}  registry.signed.json`);
});

t.test('start-up refuses a tampered registry, signature, history entry or history order: exit 1, one line saying which', async (t) => {
  const folder = await signedTwice();
  const good = { registry: await folder.read(), history: await readFile(folder.files.history, 'utf8'), signature: await readFile(folder.files.signature, 'utf8') };
  const lines = good.history.trim().split('\n');
  const restore = async () => {
    await writeFile(folder.registry, good.registry);
    await writeFile(folder.files.history, good.history);
    await writeFile(folder.files.signature, good.signature);
  };
  const other = otherPublicKey();
  const cases: [string, () => Promise<unknown>, RegExp, Record<string, string>?][] = [
    ['the registry changed after signing', () => folder.edit((s) => s.replace('Exercises first. ', 'Exercises last. ')), /^three-good-sources: registry\.json was edited after version 1\.1\.0 was signed, and its version was not raised \(.*\): raise "version" above 1\.1\.0 \(e\.g\. 1\.1\.1\), then sign it \(npx three-good-sources sign registry\.json --key <file>\)$/],
    ['a signature by another key', async () => {}, new RegExp(`^three-good-sources: registry\\.signature\\.json: signature by another key \\(${folder.pubkey}; expected ${other} from CURATOR_PUBKEY\\)$`), { CURATOR_PUBKEY: other }],
    ['a forged signature', () => writeFile(folder.files.signature, good.signature.replace(/"signature":"[A-Za-z0-9+/]{4}/, '"signature":"AAAA')), /^three-good-sources: registry\.signature\.json: bad signature: it does not verify with /],
    ['a history entry altered', () => writeFile(folder.files.history, good.history.replace('"version":"1.0.0"', '"version":"1.0.1"')), /^three-good-sources: registry\.history\.json: broken history: entry 1 \(version 1\.0\.1\): its signature does not verify/],
    ['history entries reordered', () => writeFile(folder.files.history, [lines[0], lines[2]!.replace(/,?$/, ','), lines[1]!.replace(/,$/, ''), lines[3]].join('\n')), /^three-good-sources: registry\.history\.json: broken history: entry 1 \(version 1\.1\.0\): the first entry names a predecessor/],
    ['a truncated history', () => writeFile(folder.files.history, good.history.slice(0, 300)), /^three-good-sources: registry\.history\.json: broken history: .*truncated/],
    ['a history whose head is not the served registry', () => writeFile(folder.files.history, `${[lines[0], lines[1]!.replace(/,$/, ''), lines[3]].join('\n')}\n`), /^three-good-sources: registry\.history\.json: its newest entry \(version 1\.0\.0, sha256 [0-9a-f]{64}\) is not the served registry \(version 1\.1\.0, sha256 [0-9a-f]{64}\): the history does not belong with these files; copy registry\.history\.json from where version 1\.1\.0 was signed$/],
    ['a secret configured beside a curator signature', async () => {}, /^three-good-sources: registry\.signature\.json is present: the curator signed this registry, so the server only verifies it and needs no secret; unset CURATOR_SECRET_KEY and CURATOR_KEY_FILE/, { CURATOR_SECRET_KEY: '07'.repeat(32) }],
  ];
  for (const [what, tamper, expected, env] of cases) {
    await tamper();
    const { code, lines: out } = await refused(folder, env);
    t.equal(code, 1, `${what}: exit 1`);
    t.equal(out.length, 1, `${what}: one line`);
    t.match(out[0], expected, what);
    await restore();
  }
  const spaced = good.signature.replace('","signature"', '", "signature"');
  await writeFile(folder.files.signature, spaced);
  t.match((await refused(folder)).lines, [/^three-good-sources: registry\.signature\.json: not in the form sign writes/], 'a signature file edited by hand');
  await restore();
  await rm(folder.files.signature);
  t.match((await refused(folder, {})).lines, [/^three-good-sources: registry\.history\.json is present but registry\.signature\.json is missing: restore it, or sign the registry again$/]);
  await restore();
  await rm(folder.files.history);
  t.match((await refused(folder)).lines[0], /^three-good-sources: registry\.history\.json is missing/);
});

t.test('a reload (real SIGHUP) keeps the previous registry when a file is tampered with, and takes a newly signed version', async (t) => {
  const folder = await signedTwice();
  const { server, base } = await serve(t, folder);
  const good = { registry: await folder.read(), history: await readFile(folder.files.history, 'utf8'), signature: await readFile(folder.files.signature, 'utf8') };
  const failures = () => server.logs().filter((l) => l.msg === 'registry reload failed; still serving the previous registry');
  const tampers: [string, () => Promise<unknown>, RegExp][] = [
    ['registry', () => folder.edit((s) => s.replace('Exercises first. ', 'Exercises last. ')), /was edited after version 1\.1\.0 was signed, and its version was not raised/],
    ['history entry', () => writeFile(folder.files.history, good.history.replace('"fields":["why"]', '"fields":["name"]')), /entry 2 \(version 1\.1\.0\): its signature does not verify/],
    ['history order', () => writeFile(folder.files.history, good.history.replace(/\[\n(.*),\n(.*)\n\]/, '[\n$2,\n$1\n]')), /broken history/],
  ];
  for (const [what, tamper, reason] of tampers) {
    const before = failures().length;
    await tamper();
    server.kill('SIGHUP');
    await until(() => failures().length > before);
    t.match(failures().at(-1)?.reason, reason, what);
    t.equal(await health(base), '1.1.0', `${what}: still serving 1.1.0`);
    await writeFile(folder.registry, good.registry);
    await writeFile(folder.files.history, good.history);
  }
  await nextVersion(folder, '1.2.0', (s) => s.replace('Bitcoin Node Setup', 'Bitcoin Node Setup and Sync'));
  t.equal((await folder.sign()).code, 0);
  server.kill('SIGHUP');
  await until(() => server.logs().some((l) => l.msg === 'registry reloaded'));
  t.equal(await health(base), '1.2.0', 'the newly signed version is served');
  const history = (await (await fetch(`${base}/registry/history`)).json()) as { version: string }[];
  t.same(history.map((e) => e.version), ['1.0.0', '1.1.0', '1.2.0'], 'oldest first');

  // The 1.1.0 files, every one valid and signed: a rollback all the same.
  const before = failures().length;
  await Promise.all([
    writeFile(folder.registry, good.registry),
    writeFile(folder.files.history, good.history),
    writeFile(folder.files.signature, good.signature),
  ]);
  server.kill('SIGHUP');
  await until(() => failures().length > before);
  t.match(failures().at(-1)?.reason, /^registry\.history\.json: reload refused: its history does not extend the one being served \(version 1\.2\.0, 3 entries\): a rollback to an older version or a rewritten history; restart the server to serve it deliberately$/);
  t.equal(await health(base), '1.2.0', 'still serving 1.2.0');
});

t.test('verify --known against live servers: an extension passes, a replayed older version and a rewritten history fail', async (t) => {
  const folder = await curatorFolder();
  await folder.sign();
  const old = await mkdtemp(join(tmpdir(), '3gs-old-'));
  await cp(folder.dir, old, { recursive: true });
  await nextVersion(folder, '1.1.0', (s) => s.replace('Bitcoin Node Setup', 'Bitcoin Node Setup and Sync'));
  await folder.sign();
  const known = join(await mkdtemp(join(tmpdir(), '3gs-known-')), 'known.json');
  const verify = (base: string) => cli('verify', base, '--pubkey', folder.pubkey, '--known', known);

  const current = await serve(t, folder);
  const first = await verify(current.base);
  t.equal(first.code, 0, first.err);
  t.match(first.out, /^OK registry 1\.1\.0 from .* with a verified history of 2 entries .*first check: remembered 1\.1\.0/);

  const replayed: CuratorFolder = { ...folder, registry: join(old, 'registry.json') };
  const replay = await serve(t, replayed);
  const res = await verify(replay.base);
  t.equal(res.code, 1);
  t.match(res.err, /^FAIL replayed older version: served 1\.0\.0 with 1 history entries, but version 1\.1\.0 with 2 was seen before/);

  await writeFile(join(old, 'registry.json'), (await readFile(join(old, 'registry.json'), 'utf8')).replace('"version": "1.0.0"', '"version": "1.1.0"').replace('Threat Modeling', 'Threat Modelling'));
  t.equal((await cli('sign', join(old, 'registry.json'), '--key', folder.keyFile)).code, 0);
  const rewritten = await serve(t, replayed);
  const rw = await verify(rewritten.base);
  t.equal(rw.code, 1);
  t.match(rw.err, /^FAIL rewritten history: entry 2 \(version 1\.1\.0\) is not the entry 1\.1\.0 seen before/);
  t.equal((await cli('verify', rewritten.base, '--pubkey', folder.pubkey)).code, 0, 'without --known it is a valid history on its own');
});

t.test('MCP clients read the history: get_history with filters, get_sources with the date a category last changed', async (t) => {
  const folder = await signedTwice();
  const { base } = await serve(t, folder);
  const client = new Client({ name: 'tap', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  t.teardown(() => client.close());
  const all = await client.callTool({ name: 'get_history', arguments: {} });
  t.notOk(all.isError);
  const data = all.structuredContent as { signedBy: string; total: number; entries: { version: string; summary: string[] }[] };
  t.equal(data.signedBy, 'curator');
  t.same(data.entries.map((e) => e.version), ['1.1.0', '1.0.0'], 'newest first');
  t.same(data.entries[0]!.summary, ['changed source rust-learning #2 (https://github.com/rust-lang/rustlings): why']);
  const text = (all.content as { text: string }[])[0]!.text;
  t.match(text, /^Signed history of registry 1\.1\.0: 2 of 2 entries match, newest first\./);
  t.match(text, /1\.1\.0 {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}sha256 [0-9a-f]{64}\n {2}changed source rust-learning #2/);

  const rust = (await client.callTool({ name: 'get_history', arguments: { category: 'bitcoin-node-setup' } })).structuredContent as typeof data;
  t.same(rust.entries.map((e) => e.version), ['1.0.0'], 'only the versions that changed the category');
  t.same(rust.entries[0]!.summary.slice(0, 2), ['added category bitcoin-node-setup', 'added source bitcoin-node-setup #1 (https://bitcoin.org/en/full-node)']);
  t.equal(((await client.callTool({ name: 'get_history', arguments: { limit: 1 } })).structuredContent as typeof data).entries.length, 1);
  t.equal(((await client.callTool({ name: 'get_history', arguments: { since: '2999-01-01' } })).structuredContent as typeof data).total, 0);
  const badDate = await client.callTool({ name: 'get_history', arguments: { since: '2026-02-30' } });
  t.equal(badDate.isError, true);
  t.match((badDate.content as { text: string }[])[0]!.text, /"since" is not a real date: 2026-02-30/);
  const unknown = await client.callTool({ name: 'get_history', arguments: { category: 'knitting' } });
  t.equal(unknown.isError, true);
  t.match((unknown.content as { text: string }[])[0]!.text, /No category "knitting" in this registry or its history/);

  const history = JSON.parse(await readFile(folder.files.history, 'utf8')) as { date: string }[];
  const rustSources = await client.callTool({ name: 'get_sources', arguments: { query: 'learn rust programming' } });
  t.same((rustSources.structuredContent as { lastChanged: unknown }).lastChanged, { date: history[1]!.date, from: 'history' });
  t.match((rustSources.content as { text: string }[])[0]!.text, `Last changed: ${history[1]!.date} (signed history)`);
  const bitcoin = await client.callTool({ name: 'get_sources', arguments: { query: 'run a bitcoin full node' } });
  t.same((bitcoin.structuredContent as { lastChanged: unknown }).lastChanged, { date: history[0]!.date, from: 'history' });
  const prov = (await client.callTool({ name: 'get_provenance', arguments: {} })).content as { text: string }[];
  t.match(prov[0]!.text, /Signed by: the curator, offline \(a curator-signed registry: this server only verifies it and holds no secret key\)/);
  t.match(prov[0]!.text, /History: 2 signed versions, the latest 1\.1\.0/);
});

t.test('get_history shows the note a curator signed with (from demand, issue 32)', async (t) => {
  const folder = await signedTwice();
  await nextVersion(folder, '1.2.0', (s) => s.replace('Exercises first. ', 'Exercises before the book. '));
  const signed = await cli('sign', folder.registry, '--key', folder.keyFile, '--note', 'from demand: 3 questions, 1 category');
  t.equal(signed.code, 0, signed.err);
  const { base } = await serve(t, folder);
  const client = new Client({ name: 'tap', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  t.teardown(() => client.close());
  const all = await client.callTool({ name: 'get_history', arguments: { limit: 2 } });
  const entries = (all.structuredContent as { entries: { version: string; note?: string }[] }).entries;
  t.same(entries.map((e) => [e.version, e.note]), [['1.2.0', 'from demand: 3 questions, 1 category'], ['1.1.0', undefined]]);
  t.match((all.content as { text: string }[])[0]!.text, /1\.2\.0 {2}\S+ {2}sha256 [0-9a-f]{64}\n {2}note: from demand: 3 questions, 1 category\n/);
});
