import { createHash, sign } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import t from 'tap';
import { PeerRefused, verifyPeer } from '../../../src/federation/verify.js';
import { canonicalBytes } from '../../../src/provenance/canonical.js';
import { parseSignatureDocument, signatureDocumentBytes } from '../../../src/provenance/signature.js';
import { loadRegistry, RegistryError } from '../../../src/registry/load.js';
import { MAX_DUPLICATES_LISTED, parseJson } from '../../../src/registry/parse-json.js';
import { newKey, peerRegistry } from '../../helpers/peers.js';
import { cli, curatorFolder } from '../../helpers/signed.js';

/** The registry text with a second, earlier definition of rust-learning: JSON.parse would keep the later one and say nothing. */
function withDuplicateCategory (text: string): string {
  const at = text.indexOf('"categories": {');
  const first = '"categories": {\n    "rust-learning": { "name": "A first definition that would silently vanish" },';
  return text.slice(0, at) + first + text.slice(at + '"categories": {'.length);
}

const DUPLICATE = /duplicate key "rust-learning" in categories at line \d+, column 5 \(first at line \d+, column 5\): JSON keeps only the last, so the first would silently disappear; rename or merge them/;

t.test('parseJson refuses a key written twice in one object, each with line, column and the object it is in', async (t) => {
  const text = '{\n  "a": 1,\n  "b": { "x": 1, "x": 2 },\n  "a": 3\n}';
  const parsed = parseJson(text);
  t.equal(parsed.ok, false);
  if (parsed.ok) return;
  t.same(parsed.problems, [
    'duplicate key "x" in b at line 3, column 18 (first at line 3, column 10): JSON keeps only the last, so the first would silently disappear; rename or merge them',
    'duplicate key "a" at line 4, column 3 (first at line 2, column 3): JSON keeps only the last, so the first would silently disappear; rename or merge them',
  ]);
  t.same(parseJson('{"a": {"x": 1}, "b": {"x": 1}, "list": [{"x": 1}, {"x": 2}]}'), { ok: true, value: { a: { x: 1 }, b: { x: 1 }, list: [{ x: 1 }, { x: 2 }] } }, 'the same key in different objects is fine');
  const many = `{${Array.from({ length: 30 }, () => '"k": 1').join(',')}}`;
  const flood = parseJson(many);
  t.equal(!flood.ok && flood.problems.length, MAX_DUPLICATES_LISTED + 1, 'at most 20 listed, then one line for the rest');
  t.equal(!flood.ok && flood.problems.at(-1), 'and 9 more duplicate keys');
});

t.test('every path that reads a registry refuses duplicate keys with line and column: check, sign, diff, verify and the server', async (t) => {
  const folder = await curatorFolder();
  await folder.edit(withDuplicateCategory);
  const check = await cli('check', folder.registry);
  t.equal(check.code, 1);
  t.match(check.err, DUPLICATE, 'check');
  const signed = await folder.sign();
  t.equal(signed.code, 1);
  t.match(signed.err, DUPLICATE, 'sign');
  const diff = await cli('diff', folder.registry, folder.registry);
  t.equal(diff.code, 1);
  t.match(diff.err, DUPLICATE, 'diff');
  const verify = await cli('verify', folder.registry, '--pubkey', folder.pubkey);
  t.equal(verify.code, 1);
  t.match(verify.err, DUPLICATE, 'verify');
  await t.rejects(loadRegistry(folder.registry), RegistryError, 'the server refuses to start with it');
  await loadRegistry(folder.registry).catch((err: RegistryError) => t.match(err.problems.join('\n'), DUPLICATE, 'naming the duplicate'));
});

t.test('a peer registry with a key written twice is refused, naming it', async (t) => {
  const key = newKey();
  const canonical = canonicalBytes(peerRegistry(key)).toString('utf8');
  const text = canonical.replace('"version":"1.0.0"', '"version":"1.0.0","version":"1.0.0"');
  t.not(text, canonical);
  const registry = Buffer.from(text);
  const signature = sign(null, registry, key.privateKey).toString('base64');
  const sha256 = createHash('sha256').update(registry).digest('hex');
  const doc = { algorithm: 'ed25519', canonicalization: 'RFC8785', publicKey: key.publicKey, signature, sha256, version: '1.0.0', signedBy: 'server' } as const;
  const docs = { registry, signature: signatureDocumentBytes(doc), history: Buffer.from('[]\n') };
  t.throws(() => verifyPeer(docs, key.publicKey, false), new PeerRefused(''), 'refused');
  t.throws(() => verifyPeer(docs, key.publicKey, false), { message: /^its registry is not in RFC 8785 canonical form \(duplicate key "version" at line 1, column \d+ \(first at line 1, column \d+\)/ });
});

t.test('a signature document with a field written twice is refused, naming it', async (t) => {
  const folder = await curatorFolder();
  t.equal((await folder.sign()).code, 0);
  const text = await readFile(folder.files.signature, 'utf8');
  const doubled = text.replace('"signature":', '"signature":"AAAA","signature":');
  await writeFile(folder.files.signature, doubled);
  const check = parseSignatureDocument(Buffer.from(doubled));
  t.match(check, { ok: false, problem: /^duplicate key "signature" at line 1/ });
});
