import { execFile } from 'node:child_process';
import { sign } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import canonicalize from 'canonicalize';
import t from 'tap';
import * as z32 from 'z32';
import { prepareCatalog } from '../../../src/catalog.js';
import { canonicalBytes, sha256Hex } from '../../../src/provenance/canonical.js';
import { bindCurator, curatorKeyProblems } from '../../../src/provenance/curator.js';
import { decodePublicKey, generateKey, keyFromSeed, parseSeed, publicKeyObject } from '../../../src/provenance/keys.js';
import { signRegistry, signatureDocument, verifySignature } from '../../../src/provenance/signature.js';
import { RegistryError, loadRegistry } from '../../../src/registry/load.js';
import { SHIPPED_REGISTRY, TEST_SEED, otherPublicKey, serverSigning } from '../../helpers/build.js';

const run = promisify(execFile);
const key = keyFromSeed(TEST_SEED);

t.test('z-base-32: known vector and round trip', async (t) => {
  // Computed independently: coreutils base32 of bytes 0..31, translated to the z-base-32 alphabet.
  const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
  t.equal(z32.encode(bytes), 'yyyoryarywdyqnyjbefoadeqbhebnrounoktcfaadrpbs8y7daxo');
  t.same(decodePublicKey('yyyoryarywdyqnyjbefoadeqbhebnrounoktcfaadrpbs8y7daxo'), bytes);
  for (let i = 0; i < 20; i++) {
    const { key: k } = generateKey();
    t.equal(k.publicKey.length, 52);
    t.equal(z32.encode(decodePublicKey(k.publicKey)!), k.publicKey, 'round trip');
  }
  t.equal(decodePublicKey('yyyoryarywdyqnyjbefoadeqbhebnrounoktcfaadrpbs8y7dax'), undefined, '51 characters');
  t.equal(decodePublicKey('yyyoryarywdyqnyjbefoadeqbhebnrounoktcfaadrpbs8y7daxl'), undefined, 'l is not in the alphabet');
  t.equal(decodePublicKey('yyyoryarywdyqnyjbefoadeqbhebnrounoktcfaadrpbs8y7daxa'), undefined, 'padding bits set: not the canonical spelling');
});

t.test('Ed25519 from a seed matches RFC 8032 test 1', async (t) => {
  const seed = parseSeed('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60')!;
  const k = keyFromSeed(seed);
  t.equal(decodePublicKey(k.publicKey)!.toString('hex'), 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
  t.equal(
    sign(null, Buffer.alloc(0), k.privateKey).toString('hex'),
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b'
  );
  t.equal(parseSeed('xyz'), undefined);
  t.equal(parseSeed('ab'.repeat(31)), undefined, '31 bytes');
});

t.test('sign and verify round trip over the RFC 8785 bytes', async (t) => {
  const registry = bindCurator(await loadRegistry(SHIPPED_REGISTRY), key.publicKey, SHIPPED_REGISTRY);
  const signed = signRegistry(registry, key, 'server');
  t.equal(signed.canonical.toString(), canonicalize(JSON.parse(signed.canonical.toString())), 'the signed bytes are canonical');
  t.equal(signed.sha256, sha256Hex(signed.canonical));
  t.equal(Buffer.from(signed.signature, 'base64').length, 64);
  t.ok(verifySignature(signed.canonical, signed.signature, key.publicKey), 'verifies with the curator key');
  t.same(Object.keys(signatureDocument(signed)), ['algorithm', 'canonicalization', 'publicKey', 'signature', 'sha256', 'version', 'signedBy']);
  t.same(canonicalBytes({ b: 1, a: [true, null, 'é'] }).toString(), '{"a":[true,null,"é"],"b":1}');

  // One byte changed anywhere fails: every 50th position, plus the first and the last.
  const positions = [0, signed.canonical.length - 1, ...Array.from({ length: Math.floor(signed.canonical.length / 50) }, (_, i) => i * 50)];
  let failures = 0;
  for (const p of positions) {
    const copy = Buffer.from(signed.canonical);
    copy[p] = copy[p]! ^ 0x01;
    if (!verifySignature(copy, signed.signature, key.publicKey)) failures++;
  }
  t.equal(failures, positions.length, `all ${positions.length} one-byte changes fail verification`);
  t.notOk(verifySignature(signed.canonical, signed.signature, otherPublicKey()), 'another key fails');
  t.notOk(verifySignature(signed.canonical, 'AAAA', key.publicKey), 'a short signature fails');
  t.notOk(verifySignature(signed.canonical, signed.signature, 'not-a-key'), 'a malformed key fails');
});

t.test('openssl verifies our signature', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(key), 0.4);
  const dir = await mkdtemp(join(tmpdir(), '3gs-openssl-'));
  await writeFile(join(dir, 'registry.json'), catalog.signed.canonical);
  await writeFile(join(dir, 'signature.bin'), Buffer.from(catalog.signed.signature, 'base64'));
  await writeFile(join(dir, 'key.pem'), publicKeyObject(decodePublicKey(key.publicKey)!).export({ format: 'pem', type: 'spki' }));
  const args = ['pkeyutl', '-verify', '-pubin', '-inkey', 'key.pem', '-rawin', '-in', 'registry.json', '-sigfile', 'signature.bin'];
  const { stdout } = await run('openssl', args, { cwd: dir });
  t.match(stdout, /Signature Verified Successfully/);
  const tampered = Buffer.from(catalog.signed.canonical);
  tampered[100] = tampered[100]! ^ 0x20;
  await writeFile(join(dir, 'registry.json'), tampered);
  await t.rejects(run('openssl', args, { cwd: dir }), 'openssl rejects a changed registry');
});

t.test('the curator key binds the registry', async (t) => {
  const loaded = await loadRegistry(SHIPPED_REGISTRY);
  const bound = bindCurator(loaded, key.publicKey, 'r.json');
  t.equal(bound.curator.pubkey, key.publicKey, 'an empty pubkey takes the server key');
  t.ok(Object.isFrozen(bound.curator));
  for (const placeholder of ['<curator-pubkey>', 'TODO', 'placeholder']) {
    t.equal(bindCurator({ ...loaded, curator: { ...loaded.curator, pubkey: placeholder } }, key.publicKey, 'r.json').curator.pubkey, key.publicKey, placeholder);
  }
  t.equal(bindCurator({ ...loaded, curator: { ...loaded.curator, pubkey: key.publicKey } }, key.publicKey, 'r.json').curator.pubkey, key.publicKey, 'the same key');

  const other = otherPublicKey();
  t.throws(() => bindCurator({ ...loaded, curator: { ...loaded.curator, pubkey: other } }, key.publicKey, 'r.json'), RegistryError);
  t.throws(() => bindCurator({ ...loaded, curator: { ...loaded.curator, pubkey: other } }, key.publicKey, 'r.json'), {
    message: new RegExp(`curator.pubkey: names ${other}, but this server signs with ${key.publicKey}`),
  });
  t.throws(() => bindCurator({ ...loaded, curator: { ...loaded.curator, pubkey: 'abc' } }, key.publicKey, 'r.json'), {
    message: /curator\.pubkey: must be a z-base-32 Ed25519 public key/,
  });
  const self = { pubkey: key.publicKey, url: 'https://me.example/', name: 'Me', since: '2026-01-01' };
  t.throws(() => bindCurator({ ...loaded, endorsements: [self] }, key.publicKey, 'r.json'), { message: /\n {2}endorsement 1\.pubkey: a curator cannot endorse itself$/ });
  const bent = { pubkey: 'yyyoryarywdyqnyjbefoadeqbhebnrounoktcfaadrpbs8y7daxa', url: 'https://x.example/', name: 'X', since: '2026-01-01' };
  t.throws(() => bindCurator({ ...loaded, endorsements: [bent] }, key.publicKey, 'r.json'), { message: /\n {2}endorsement 1\.pubkey: must be a z-base-32 Ed25519 public key \(52 characters\)$/ });
});

t.test('curatorKeyProblems: one set of rules for the server (with its key) and check (without)', async (t) => {
  const loaded = await loadRegistry(SHIPPED_REGISTRY);
  const named = otherPublicKey();
  const peer = { pubkey: otherPublicKey(), url: 'https://peer.example/', name: 'Peer', since: '2026-01-01' };
  const self = { ...peer, pubkey: named };
  const registry = { ...loaded, curator: { ...loaded.curator, pubkey: named }, endorsements: [peer, self] };
  t.same(curatorKeyProblems(registry), ['endorsement 2.pubkey: a curator cannot endorse itself'], 'without a server key: the named curator');
  t.same(curatorKeyProblems(registry, named), ['endorsement 2.pubkey: a curator cannot endorse itself'], 'the server holding that key');
  t.same(
    curatorKeyProblems(registry, key.publicKey),
    [`curator.pubkey: names ${named}, but this server signs with ${key.publicKey}; have that curator sign the registry (npx three-good-sources sign) and serve it with CURATOR_PUBKEY, configure that curator's secret key (CURATOR_SECRET_KEY or CURATOR_KEY_FILE), or empty curator.pubkey`],
    'another server: the key mismatch (and no self-endorsement, since the server is not that curator)'
  );
  const unnamed = { ...loaded, endorsements: [{ ...peer, pubkey: key.publicKey }] };
  t.same(curatorKeyProblems(unnamed), [], 'an empty curator key endorses nobody until a server takes it');
  t.same(curatorKeyProblems(unnamed, key.publicKey), ['endorsement 1.pubkey: a curator cannot endorse itself'], 'the server key it takes');
  t.same(curatorKeyProblems({ ...loaded, curator: { ...loaded.curator, pubkey: 'abc' } }), ["curator.pubkey: must be a z-base-32 Ed25519 public key (52 characters), or empty to take the server's key"]);
});

t.test('the served registry is the file plus the curator key, sources in rank order', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(key), 0.4);
  const served = JSON.parse(catalog.signed.canonical.toString());
  const file = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8'));
  t.same(served, { ...file, curator: { ...file.curator, pubkey: key.publicKey } });
});
