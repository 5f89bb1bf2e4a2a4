import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import t from 'tap';
import { prepareCatalog } from '../../../src/catalog.js';
import { checkCuratorSigned } from '../../../src/provenance/curator-signed.js';
import { loadRegistry } from '../../../src/registry/load.js';
import { parseSignatureDocument, signatureDocumentBytes } from '../../../src/provenance/signature.js';
import { chooseSigning } from '../../../src/provenance/signing.js';
import { TEST_SEED, otherPublicKey } from '../../helpers/build.js';
import { curatorFolder, nextVersion, signedTwice } from '../../helpers/signed.js';

t.test('the signing mode: CURATOR_PUBKEY, a signature file, a secret key, or an ephemeral key', async (t) => {
  const folder = await curatorFolder();
  t.match(await chooseSigning({ registryFile: folder.registry, pubkey: folder.pubkey }), { mode: 'curator', publicKey: folder.pubkey, keySource: 'CURATOR_PUBKEY' });
  t.match(await chooseSigning({ registryFile: folder.registry }), { mode: 'ephemeral' });
  t.match(await chooseSigning({ registryFile: folder.registry, seed: TEST_SEED }), { mode: 'server' });
  await folder.sign();
  t.match(await chooseSigning({ registryFile: folder.registry }), { mode: 'curator', publicKey: folder.pubkey, keySource: "the registry's own curator.pubkey" });
  await t.rejects(chooseSigning({ registryFile: folder.registry, seed: TEST_SEED }), { message: /^registry\.signature\.json is present: the curator signed this registry, so the server only verifies it and needs no secret/ });
  const text = await folder.read();
  await folder.edit((s) => s.replace(`"pubkey": "${folder.pubkey}"`, '"pubkey": "<curator-pubkey>"'));
  await t.rejects(chooseSigning({ registryFile: folder.registry }), { message: /^registry\.signature\.json is present but there is no key to check it with: set CURATOR_PUBKEY or the registry's curator\.pubkey/ });
  await writeFile(folder.registry, text);
  await rm(folder.files.signature);
  await t.rejects(chooseSigning({ registryFile: folder.registry }), { message: /^registry\.history\.json is present but registry\.signature\.json is missing/ });
});

t.test('checkCuratorSigned names what is wrong: the signer, the registry naming another curator, a stale history head, an unreadable file', async (t) => {
  const folder = await signedTwice();
  const registry = await loadRegistry(folder.registry);
  const files = {
    registryFile: folder.registry,
    signatureFile: folder.files.signature,
    historyFile: folder.files.history,
    signatureBytes: await readFile(folder.files.signature),
    historyBytes: await readFile(folder.files.history),
  };
  t.ok(checkCuratorSigned(registry, files, folder.pubkey, 'CURATOR_PUBKEY').ok);
  const parsed = parseSignatureDocument(files.signatureBytes);
  if (!parsed.ok) throw new Error(parsed.problem);
  const byServer = signatureDocumentBytes({ ...parsed.doc, signedBy: 'server' });
  t.match(checkCuratorSigned(registry, { ...files, signatureBytes: byServer }, folder.pubkey, 'CURATOR_PUBKEY'), {
    ok: false,
    problem: 'registry.signature.json: says it was signed by "server", not by the curator with sign',
  });
  const other = otherPublicKey();
  const renamed = { ...registry, curator: { ...registry.curator, pubkey: other } };
  t.match(checkCuratorSigned(renamed, files, folder.pubkey, 'CURATOR_PUBKEY'), { ok: false, problem: `registry.json: curator.pubkey is ${other}, but the registry must name its curator ${folder.pubkey} (CURATOR_PUBKEY)` });

  // Sign 1.2.0, then put the 1.1.0 history back: the signature is good, the history is behind.
  const older = files.historyBytes;
  await nextVersion(folder, '1.2.0');
  await folder.sign();
  const newer = await loadRegistry(folder.registry);
  t.match(checkCuratorSigned(newer, { ...files, signatureBytes: await readFile(folder.files.signature), historyBytes: older }, folder.pubkey, 'CURATOR_PUBKEY'), {
    ok: false,
    problem: /^registry\.history\.json: its newest entry \(version 1\.1\.0, sha256 [0-9a-f]{64}\) is not the served registry \(version 1\.2\.0, sha256 [0-9a-f]{64}\): the history does not belong with these files; copy registry\.history\.json from where version 1\.2\.0 was signed$/,
  });

  await rm(folder.files.signature);
  await mkdir(folder.files.signature);
  await t.rejects(prepareCatalog(folder.registry, { mode: 'curator', publicKey: folder.pubkey, keySource: 'CURATOR_PUBKEY' }, 0.4), { message: 'registry.signature.json: cannot read the file (EISDIR)' });
});

t.test('a signature document is read only in the exact form sign writes: an extra field or another layout is refused', async (t) => {
  const folder = await curatorFolder();
  await folder.sign();
  const bytes = await readFile(folder.files.signature);
  const parsed = parseSignatureDocument(bytes);
  if (!parsed.ok) throw new Error(parsed.problem);
  const doc = parsed.doc as unknown as Record<string, unknown>;
  const text = bytes.toString('utf8').trim();
  const variants: [string, string][] = [
    ['pretty-printed', JSON.stringify(doc, null, 2)],
    ['an extra field', JSON.stringify({ ...doc, note: 'hello' })],
    ['a space after a colon', text.replace('":"', '": "')],
    ['fields reordered', JSON.stringify(Object.fromEntries(Object.entries(doc).reverse()))],
  ];
  for (const [what, variant] of variants) {
    t.match(parseSignatureDocument(Buffer.from(`${variant}\n`)), { ok: false, problem: 'not in the form sign writes (one line of JSON with exactly its fields, in its order)' }, what);
  }
  t.ok(parseSignatureDocument(bytes).ok, 'the form sign writes is read');
});
