import { createHash, sign } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { PeerRefused, verifyPeer } from '../../../src/federation/verify.js';
import { canonicalBytes } from '../../../src/provenance/canonical.js';
import { checkHistory } from '../../../src/provenance/history.js';
import { signatureDocumentBytes } from '../../../src/provenance/signature.js';
import type { Registry } from '../../../src/registry/types.js';
import { newKey, peerDocuments, peerRegistry } from '../../helpers/peers.js';
import { curatorFolder } from '../../helpers/signed.js';

const key = newKey();

/** The example peer registry with its first category repeated under `n` slugs. */
function manyCategories(n: number): Registry {
  const registry = peerRegistry(key);
  const first = Object.values(registry.categories)[0]!;
  return { ...registry, categories: Object.fromEntries(Array.from({ length: n }, (_, i) => [`topic-${i}`, first])) };
}

/** Documents whose signature is valid for whatever bytes are given as the registry. */
function signedBytes(registry: Buffer, version = '1.0.0') {
  const signature = sign(null, registry, key.privateKey).toString('base64');
  const sha256 = createHash('sha256').update(registry).digest('hex');
  const doc = { algorithm: 'ed25519', canonicalization: 'RFC8785', publicKey: key.publicKey, signature, sha256, version, signedBy: 'server' } as const;
  return { registry, signature: signatureDocumentBytes(doc), history: Buffer.from('[]\n') };
}

t.test('a peer registry is refused, with the reason, unless everything about it holds', async (t) => {
  const good = peerDocuments(peerRegistry(key), key);
  t.equal(verifyPeer(good, key.publicKey, false).version, '1.0.0');
  const refusals: [string, Parameters<typeof verifyPeer>[0], RegExp][] = [
    ['a signature document that is not one', { ...good, signature: Buffer.from('<html>') }, /^signature document: not JSON/],
    ['a registry that is not JSON', signedBytes(Buffer.from('{oops')), /^its registry is not JSON$/],
    ['a registry not in canonical form', signedBytes(Buffer.from(JSON.stringify(peerRegistry(key), null, 1))), /^its registry is not in RFC 8785 canonical form$/],
    ['a registry that breaks our rules', signedBytes(canonicalBytes({ ...peerRegistry(key), version: 'one' })), /^its registry breaks our rules: version: /],
    ['a registry naming another curator', signedBytes(canonicalBytes({ ...peerRegistry(key), curator: { name: 'X', pubkey: newKey().publicKey } })), /^its registry names another curator key than the endorsed one$/],
    ['a document naming another version', signedBytes(canonicalBytes(peerRegistry(key)), '9.9.9'), /^its signature document names another version than its registry$/],
    ['a text too long', signedBytes(canonicalBytes({ ...peerRegistry(key), curator: { name: 'x'.repeat(5000), pubkey: key.publicKey } })), /^a text longer than 4000 characters$/],
    ['too many categories', signedBytes(canonicalBytes(manyCategories(1001))), /^more than 1000 categories$/],
    ['too long a history', { ...peerDocuments(peerRegistry(key), key), history: Buffer.from(`[\n${'{},\n'.repeat(1001)}{}\n]\n`) }, /^a history of more than 1000 entries$/],
    ['a history claimed away', { ...peerDocuments(peerRegistry(key), key), history: Buffer.from('[\n{"junk":1}\n]\n') }, /^broken history: entry 1: not a history entry/],
  ];
  for (const [what, docs, reason] of refusals) {
    t.throws(() => verifyPeer(docs, key.publicKey, false), new PeerRefused(''), what);
    try {
      verifyPeer(docs, key.publicKey, false);
    } catch (err) {
      t.match((err as Error).message, reason, what);
    }
  }
});

t.test('fields this version does not know are dropped from a peer registry, anywhere in it', async (t) => {
  const registry = peerRegistry(key) as Registry & { categories: Record<string, { sources: object[] }> };
  const slug = Object.keys(registry.categories)[0]!;
  const category = registry.categories[slug]!;
  const newer = {
    ...registry,
    motto: 'newer',
    categories: { ...registry.categories, [slug]: { ...category, audience: 'all', sources: category.sources.map((s) => ({ ...s, language: 'en' })) } },
  };
  const verified = verifyPeer(peerDocuments(newer as unknown as Registry, key), key.publicKey, false);
  t.same(Object.keys(verified.registry.categories), Object.keys(registry.categories), 'every category kept');
  t.notOk('audience' in verified.registry.categories[slug]!);
  t.notOk('language' in verified.registry.categories[slug]!.sources[0]!);
});

t.test('a curator-signed peer: its history must verify and end at the registry served', async (t) => {
  const folder = await curatorFolder();
  await folder.sign();
  const registry = await readFile(folder.files.signed);
  const signature = await readFile(folder.files.signature);
  const history = await readFile(folder.files.history);
  const pub = folder.pubkey;
  t.equal(verifyPeer({ registry, signature, history }, pub, false).signedBy, 'curator');
  t.throws(() => verifyPeer({ registry, signature, history: Buffer.from('[]\n') }, pub, false), { message: /^broken history: no entries/ });
  t.ok(checkHistory(history.toString(), pub).ok);
  // Another valid history of the same curator that ends elsewhere.
  await folder.edit((s) => s.replace('"version": "1.0.0"', '"version": "1.1.0"').replace('Threat Modeling', 'Threat Modelling'));
  await folder.sign();
  const longer = await readFile(folder.files.history);
  t.throws(() => verifyPeer({ registry, signature, history: longer }, pub, false), { message: 'its history does not end at the registry it serves' });
});
