import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { prepareCatalog } from '../../src/catalog.js';
import { getHistory } from '../../src/mcp/tools/get-history.js';
import { generateKey } from '../../src/provenance/keys.js';
import { SHIPPED_REGISTRY, build, serverSigning } from '../helpers/build.js';
import { cli, curatorFolder, nextVersion, signedTwice } from '../helpers/signed.js';

const curator = (pubkey: string, keySource = 'CURATOR_PUBKEY') => ({ mode: 'curator', publicKey: pubkey, keySource }) as const;
type Data = { signedBy: string; total: number; entries: { version: string; summary: string[] }[] };
const text = (r: { content: readonly { text: string }[] }) => r.content[0]!.text;

t.test('a curator-signed catalog carries the signature file, the history and when each category last changed', async (t) => {
  const folder = await signedTwice();
  const catalog = await prepareCatalog(folder.registry, curator(folder.pubkey), 0.4);
  t.equal(catalog.signed.mode, 'curator');
  t.same(catalog.signatureBytes, await readFile(folder.files.signature));
  t.same(catalog.historyBytes, await readFile(folder.files.history));
  t.same(catalog.history.map((e) => e.version), ['1.0.0', '1.1.0']);
  t.equal(catalog.lastChanged.get('rust-learning'), catalog.history[1]!.date);
  t.equal(catalog.lastChanged.get('bitcoin-node-setup'), catalog.history[0]!.date);
  await t.rejects(prepareCatalog(folder.registry, serverSigning(), 0.4), { message: /^registry\.signature\.json appeared: this server was started to sign the registry itself \(server key\); restart it/ });
});

t.test('get_history: newest first, filtered by date, category and limit; plain errors for a bad date or an unknown category', async (t) => {
  const folder = await signedTwice();
  await nextVersion(folder, '1.2.0', (s) => s.replace('Bitcoin Node Setup', 'Bitcoin Node Setup and Sync'));
  t.equal((await folder.sign()).code, 0);
  const catalog = await prepareCatalog(folder.registry, curator(folder.pubkey), 0.4);
  const call = (args: Record<string, unknown>) => getHistory.run(args, catalog);
  const all = call({});
  t.same((all.structuredContent as Data).entries.map((e) => e.version), ['1.2.0', '1.1.0', '1.0.0']);
  t.match(text(all), /^Signed history of registry 1\.2\.0: 3 of 3 entries match, newest first\./);
  const limited = call({ limit: 2 });
  t.match(text(limited), /3 of 3 entries match, the newest 2 shown/);
  t.equal((limited.structuredContent as Data).total, 3);
  const bitcoin = call({ category: 'bitcoin-node-setup' });
  t.same((bitcoin.structuredContent as Data).entries.map((e) => e.version), ['1.2.0', '1.0.0']);
  t.same((bitcoin.structuredContent as Data).entries[0]!.summary, ['changed category bitcoin-node-setup: name']);
  const today = catalog.history[2]!.date.slice(0, 10);
  t.equal((call({ since: today }).structuredContent as Data).total, 3, 'a day means from its start');
  t.equal((call({ since: catalog.history[2]!.date }).structuredContent as Data).entries[0]!.version, '1.2.0', 'a moment, to the second');
  t.equal((call({ since: '2999-12-31T00:00:00Z' }).structuredContent as Data).total, 0);
  for (const since of ['2026-02-30', '2026-13-01', '2026-01-01T25:00:00Z']) {
    const bad = call({ since });
    t.equal(bad.isError, true, since);
    t.match(text(bad), `"since" is not a real date: ${since}`);
  }
  const unknown = call({ category: 'constructor' });
  t.equal(unknown.isError, true, 'an inherited property name is no category');
  t.match(text(unknown), /No category "constructor" in this registry or its history/);
  // A category removed later is still in the history.
  await nextVersion(folder, '1.3.0', (s) => {
    const registry = JSON.parse(s) as { categories: Record<string, unknown> };
    delete registry.categories['pubky-development'];
    return JSON.stringify(registry, null, 2);
  });
  t.equal((await folder.sign()).code, 0);
  const later = await prepareCatalog(folder.registry, curator(folder.pubkey), 0.4);
  const removed = getHistory.run({ category: 'pubky-development' }, later);
  t.same((removed.structuredContent as Data).entries[0]!.summary, ['removed category pubky-development']);
});

t.test('get_history without a signed history says how the registry is signed instead', async (t) => {
  const ephemeral = await prepareCatalog(SHIPPED_REGISTRY, { mode: 'ephemeral', key: generateKey(true).key }, 0.4);
  t.match(text(getHistory.run({}, ephemeral)), /^This registry \(version 1\.0\.0\) has no signed history: it is signed by an ephemeral development key, not by its curator with the sign command\.$/);
  const server = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.4);
  t.match(text(getHistory.run({}, server)), /it is signed by this server, not by its curator/);
  t.same((getHistory.run({}, server).structuredContent as Data).entries, []);
});

t.test('in process: the routes, the ETags and a reload that would roll the history back', async (t) => {
  const folder = await curatorFolder();
  await folder.sign();
  const old = await mkdtemp(join(tmpdir(), '3gs-old-'));
  await cp(folder.dir, old, { recursive: true });
  await nextVersion(folder, '1.1.0', (s) => s.replace('Threat Modeling', 'Threat Modelling'));
  await folder.sign();
  const app = await build(t, { registryPath: folder.registry, curatorSeed: undefined, curatorPubkey: folder.pubkey });
  const signature = await app.inject({ method: 'GET', url: '/registry/signature' });
  t.same(signature.rawPayload, await readFile(folder.files.signature));
  const etag = signature.headers.etag as string;
  t.equal((await app.inject({ method: 'GET', url: '/registry' })).headers.etag, etag);
  t.equal((await app.inject({ method: 'GET', url: '/registry', headers: { 'if-none-match': `"other", ${etag}` } })).statusCode, 304);
  const history = await app.inject({ method: 'GET', url: '/registry/history' });
  t.same(history.rawPayload, await readFile(folder.files.history));
  t.not(history.headers.etag, etag, 'the history has an ETag of its own');

  for (const f of ['registry.json', 'registry.signature.json', 'registry.history.json']) await cp(join(old, f), join(folder.dir, f));
  const outcome = await app.reloadRegistry();
  t.match(outcome, { ok: false, error: /reload refused: its history does not extend the one being served \(version 1\.1\.0, 2 entries\)/ });
  t.equal(JSON.parse((await app.inject({ method: 'GET', url: '/health' })).body).registryVersion, '1.1.0');
  await rm(old, { recursive: true });
});

t.test('get_history gives an entry\'s note, as text and structured, and none where the curator gave none (issue 32)', async (t) => {
  const folder = await signedTwice();
  await nextVersion(folder, '1.2.0', (s) => s.replace('Bitcoin Node Setup', 'Bitcoin Node Setup and Sync'));
  const signed = await cli('sign', folder.registry, '--key', folder.keyFile, '--note', 'from demand: 4 questions, 2 categories');
  t.equal(signed.code, 0, signed.err);
  const catalog = await prepareCatalog(folder.registry, curator(folder.pubkey), 0.4);
  const all = getHistory.run({ limit: 2 }, catalog);
  t.same((all.structuredContent as { entries: { note?: string }[] }).entries.map((e) => e.note), ['from demand: 4 questions, 2 categories', undefined]);
  t.match(text(all), /1\.2\.0 {2}\S+ {2}sha256 [0-9a-f]{64}\n {2}note: from demand: 4 questions, 2 categories\n {2}changed category bitcoin-node-setup/);
});
