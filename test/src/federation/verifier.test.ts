import t from 'tap';
import { PeerVerifier } from '../../../src/federation/verifier.js';
import { canonicalBytes } from '../../../src/provenance/canonical.js';
import type { Registry } from '../../../src/registry/types.js';
import { newKey, peerDocuments, peerRegistry } from '../../helpers/peers.js';

const key = newKey();
const good = peerDocuments(peerRegistry(key), key);

/** The example peer registry with its first category repeated under `n` slugs, signed. */
function large (n: number, padding = 3000) {
  const registry = peerRegistry(key);
  const first = Object.values(registry.categories)[0]!;
  const categories = Object.fromEntries(Array.from({ length: n }, (_, i) => [`topic-${i}`, { ...first, description: `${first.description} ${i} ${'x'.repeat(padding)}` }]));
  return peerDocuments({ ...registry, categories } as Registry, key);
}

const outcome = (p: Promise<{ version: string }>) => p.then((v) => `accepted ${v.version}`, (err: Error) => `${err.constructor.name}: ${err.message}`);

t.test('a copy is verified in the worker thread: the same answer as in the process, refusals included', async (t) => {
  const verifier = new PeerVerifier();
  t.teardown(() => verifier.close());
  t.equal(await outcome(verifier.verify(good, key.publicKey, false, undefined)), 'accepted 1.0.0');
  const verified = await verifier.verify(good, key.publicKey, false, undefined);
  t.same(Object.keys(verified.registry.categories), Object.keys(peerRegistry(key).categories), 'the registry comes back whole');
  t.equal(await outcome(verifier.verify({ ...good, registry: canonicalBytes({ x: 1 }) }, key.publicKey, false, undefined)), 'PeerRefused: its registry does not match its signature document (digest mismatch)');
  t.equal(await outcome(verifier.verify(good, key.publicKey, false, { version: '2.0.0', historyLength: 0, head: undefined })), 'PeerRefused: an older version (1.0.0) than the one in use (2.0.0)');
});

t.test('a copy that takes longer than the deadline is refused and the worker replaced: the next copy is verified', async (t) => {
  const verifier = new PeerVerifier({ timeoutMs: 1 });
  t.teardown(() => verifier.close());
  t.equal(await outcome(verifier.verify(large(400), key.publicKey, false, undefined)), 'PeerRefused: verifying it took longer than 1 ms');
  const patient = new PeerVerifier();
  t.teardown(() => patient.close());
  t.equal(await outcome(patient.verify(good, key.publicKey, false, undefined)), 'accepted 1.0.0');
});

t.test('documents larger than a peer may send are refused before the worker reads them, however they arrived', async (t) => {
  const verifier = new PeerVerifier();
  t.teardown(() => verifier.close());
  const huge = Buffer.alloc(5 * 1024 * 1024 + 1, 32);
  t.equal(await outcome(verifier.verify({ ...good, registry: huge }, key.publicKey, false, undefined)), 'PeerRefused: its registry document is larger than 5242880 bytes');
  t.equal(await outcome(verifier.verify({ ...good, signature: Buffer.alloc(16 * 1024 + 1) }, key.publicKey, false, undefined)), 'PeerRefused: its signature document is larger than 16384 bytes');
  t.equal(await outcome(verifier.verify({ ...good, history: huge }, key.publicKey, false, undefined)), 'PeerRefused: its history document is larger than 5242880 bytes');
  t.equal(await outcome(verifier.verify(good, key.publicKey, false, undefined)), 'accepted 1.0.0');
});

t.test('closing refuses the copies waiting, and any asked for after', async (t) => {
  const verifier = new PeerVerifier();
  const waiting = [1, 2, 3].map(() => outcome(verifier.verify(large(200), key.publicKey, false, undefined)));
  await verifier.close();
  t.same(await Promise.all(waiting), Array(3).fill('PeerRefused: the server is closing'));
  t.equal(await outcome(verifier.verify(good, key.publicKey, false, undefined)), 'PeerRefused: the server is closing');
});
