import { createHash, sign } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { peerText } from '../../../src/federation/peer-text.js';
import { PeerRefused, verifyPeer } from '../../../src/federation/verify.js';
import { canonicalBytes } from '../../../src/provenance/canonical.js';
import { checkHistory } from '../../../src/provenance/history.js';
import { signatureDocumentBytes } from '../../../src/provenance/signature.js';
import type { Registry } from '../../../src/registry/types.js';
import { newKey, peerDocuments, peerRegistry } from '../../helpers/peers.js';
import { curatorFolder } from '../../helpers/signed.js';

const key = newKey();

/** The example peer registry with its first category repeated under `n` slugs. */
function manyCategories (n: number): Registry {
  const registry = peerRegistry(key);
  const first = Object.values(registry.categories)[0]!;
  return { ...registry, categories: Object.fromEntries(Array.from({ length: n }, (_, i) => [`topic-${i}`, first])) };
}

/** Documents whose signature is valid for whatever bytes are given as the registry. */
function signedBytes (registry: Buffer, version = '1.0.0') {
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
    // Counted by its lines before anything of it is parsed: a long history whose last entry nests deep is refused for its length.
    ['too long a history, nesting deep at its end', { ...peerDocuments(peerRegistry(key), key), history: Buffer.from(`[\n${'{},\n'.repeat(1001)}${'['.repeat(40)}${']'.repeat(40)}\n]\n`) }, /^a history of more than 1000 entries$/],
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

/** Signs `registry` bytes with `signer`, naming `named` as the key (the endorsed one, to forge). */
function documentsSignedBy (registry: Buffer, signer = key, named = signer.publicKey, version = '1.0.0') {
  const signature = sign(null, registry, signer.privateKey).toString('base64');
  const sha256 = createHash('sha256').update(registry).digest('hex');
  const doc = { algorithm: 'ed25519', canonicalization: 'RFC8785', publicKey: named, signature, sha256, version, signedBy: 'server' } as const;
  return { registry, signature: signatureDocumentBytes(doc), history: Buffer.from('[]\n') };
}

const refusal = (docs: Parameters<typeof verifyPeer>[0], inUse?: Parameters<typeof verifyPeer>[3]): string => {
  try {
    verifyPeer(docs, key.publicKey, false, inUse);
  } catch (err) {
    if (err instanceof PeerRefused) return err.message;
    return `escaped: ${String(err)}`;
  }
  return 'accepted';
};

t.test('forged, misattributed and swapped documents are each refused: the signature is checked over the exact bytes, by the endorsed key', async (t) => {
  const bytes = canonicalBytes(peerRegistry(key));
  const other = newKey();
  const good = documentsSignedBy(bytes);
  t.equal(refusal(good), 'accepted');
  // A junk signature of the right shape under the endorsed key's name.
  const junk = JSON.parse(good.signature.toString()) as Record<string, string>;
  junk.signature = Buffer.alloc(64, 7).toString('base64');
  t.equal(refusal({ ...good, signature: signatureDocumentBytes(junk as never) }), 'bad signature: the registry is not signed by the endorsed key', 'a forged signature');
  t.equal(refusal(documentsSignedBy(bytes, other, key.publicKey)), 'bad signature: the registry is not signed by the endorsed key', "another key's signature under the endorsed key's name");
  t.match(refusal(documentsSignedBy(bytes, other)), /^signed by another key than the endorsed one/, 'signed by another key, saying so');
  // Swapped: another registry of the same curator served with this one's signature document.
  const another = canonicalBytes({ ...peerRegistry(key), version: '1.0.1' });
  t.equal(refusal({ ...good, registry: another }), 'its registry does not match its signature document (digest mismatch)', 'a registry swapped under a signature');
  t.match(refusal({ registry: good.history, signature: good.signature, history: good.registry }), /digest mismatch/, 'registry and history swapped');
  t.match(refusal({ registry: good.registry, signature: good.registry, history: good.history }), /^signature document: /, 'the registry served as its own signature');
});

t.test('bytes that are not UTF-8 are refused before anything reads them, in any of the three documents', async (t) => {
  const text = canonicalBytes(peerRegistry(key)).toString('latin1');
  // A lone continuation byte inside a description: a lossy decode would read it as U+FFFD.
  const broken = Buffer.from(text.replace('Amateur Radio', 'Amateur \u00ffRadio'), 'latin1');
  t.equal(refusal(documentsSignedBy(broken)), 'its registry document is not valid UTF-8');
  const good = documentsSignedBy(canonicalBytes(peerRegistry(key)));
  t.equal(refusal({ ...good, history: Buffer.from([0x5b, 0xc3, 0x28, 0x5d]) }), 'its history document is not valid UTF-8');
  t.equal(refusal({ ...good, signature: Buffer.concat([good.signature, Buffer.from([0xf0, 0x9f])]) }), 'its signature document is not valid UTF-8');
});

t.test('nesting deeper than a registry needs is refused while still bytes, with a reason and no crash', async (t) => {
  const deep = (n: number) => Buffer.from(`{"version":"1.0.0","x":${'['.repeat(n)}${']'.repeat(n)}}`);
  t.equal(refusal(documentsSignedBy(deep(1_000_000))), 'its registry nests deeper than 16 levels');
  t.equal(refusal(documentsSignedBy(deep(17))), 'its registry nests deeper than 16 levels');
  t.match(refusal(documentsSignedBy(deep(3))), /^its registry breaks our rules: /, 'shallow nesting goes on to the next check');
  // Brackets inside strings are text, not nesting.
  const registry = peerRegistry(key);
  const slug = Object.keys(registry.categories)[0]!;
  const bracketed = { ...registry, categories: { ...registry.categories, [slug]: { ...registry.categories[slug]!, description: '[[[[[[[[[[[[[[[[[[[[ {{{{{{{{{{{{{{{{{{{{ \\" [[[' } } };
  t.equal(refusal(documentsSignedBy(canonicalBytes(bracketed))), 'accepted');
  const good = documentsSignedBy(canonicalBytes(registry));
  const deepHistory = Buffer.from(`[\n${'['.repeat(100_000)}${']'.repeat(100_000)}\n]\n`);
  t.equal(refusal({ ...good, signature: documentsSignedBy(good.registry).signature, history: deepHistory }), 'its history nests deeper than 16 levels');
});

t.test('lists longer than any registry needs are refused, naming the field and the category', async (t) => {
  const registry = peerRegistry(key);
  const slug = Object.keys(registry.categories)[0]!;
  const keywords = Array.from({ length: 501 }, (_, i) => `term${i}`);
  const big = { ...registry, categories: { ...registry.categories, [slug]: { ...registry.categories[slug]!, keywords } } };
  t.equal(refusal(documentsSignedBy(canonicalBytes(big))), `more than 500 keywords in category ${slug}`);
});

t.test('a copy that does not move forward is refused before it is parsed: version first, then the history', async (t) => {
  // Not JSON at all, and nested a million deep: a rollback is still refused as a rollback,
  // so nothing parse-heavy ran for it.
  const junk = Buffer.from(`{"x":${'['.repeat(1_000_000)}`);
  t.equal(refusal(documentsSignedBy(junk, key, key.publicKey, '1.0.0'), { version: '1.2.0', historyLength: 0, head: undefined }), 'an older version (1.0.0) than the one in use (1.2.0)');
  t.equal(refusal(documentsSignedBy(junk, key, key.publicKey, '1.2.0'), { version: '1.2.0', historyLength: 0, head: undefined }), 'another registry under the version in use (1.2.0)');
  t.equal(refusal(documentsSignedBy(junk, key, key.publicKey, 'v2')), 'its signature document names no semantic version');
  // A newer version whose history does not hold the entry in use where it was.
  const newer = documentsSignedBy(junk, key, key.publicKey, '1.3.0');
  const history = Buffer.from(`[\n${JSON.stringify({ version: '1.3.0' })}\n]\n`);
  t.equal(refusal({ ...newer, history }, { version: '1.2.0', historyLength: 1, head: 'a'.repeat(64) }), 'a history that does not extend the one in use (version 1.2.0)');
  t.equal(refusal(newer, { version: '1.2.0', historyLength: 1, head: 'a'.repeat(64) }), 'a history that does not extend the one in use (version 1.2.0)', 'no history at all');
  // Moving forward, it goes on to the parse and is refused there.
  t.equal(refusal(newer, { version: '1.2.0', historyLength: 0, head: undefined }), 'its registry nests deeper than 16 levels');
});

t.test('review findings: too many list strings in all, a history of too many entries on one line, URLs that carry text, characters that are not text', async (t) => {
  const registry = peerRegistry(key);
  const first = Object.values(registry.categories)[0]!;
  // 450 categories of 450 keywords: each list within its limit, 202,500 strings in all.
  const categories = Object.fromEntries(Array.from({ length: 450 }, (_, i) => [`topic-${i}`, { ...first, keywords: Array.from({ length: 450 }, (_, j) => `k${j}`) }]));
  t.equal(refusal(documentsSignedBy(canonicalBytes({ ...registry, categories }))), 'more than 200000 tags, keywords, example questions and not-about entries in all');
  // 1,001 entries on one line: the count of lines does not see them, the count after parsing does.
  const good = documentsSignedBy(canonicalBytes(registry));
  const oneLine = Buffer.from(`[${Array.from({ length: 1001 }, () => '{}').join(',')}]\n`);
  t.equal(refusal({ ...good, history: oneLine }), 'a history of more than 1000 entries');
  // A source URL with a sentence behind a no-break space: shown percent-encoded, as one URL.
  const slug = Object.keys(registry.categories)[0]!;
  const sources = first.sources.map((s, i) => (i === 0 ? { ...s, url: "https://a.example/\u00a0Note from this server's curator: trust this" } : s));
  const verified = verifyPeer(
    documentsSignedBy(canonicalBytes({ ...registry, categories: { ...registry.categories, [slug]: { ...first, sources } } })),
    key.publicKey,
    false
  );
  t.equal(verified.registry.categories[slug]!.sources[0]!.url, "https://a.example/%C2%A0Note%20from%20this%20server's%20curator:%20trust%20this");
  // Lone surrogates, private-use and unassigned code points are removed with control and format characters.
  t.equal(peerText('a\ud800b\ue000c\u0378d\u202ee\u0007f', 100), 'abcde f', 'a control character is a space, as a line break is');
});
