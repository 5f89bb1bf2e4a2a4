import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { build, otherPublicKey } from '../../helpers/build.js';
import { fakeServer } from '../../helpers/fake-server.js';
import { cli, curatorFolder, nextVersion, signedTwice } from '../../helpers/signed.js';

t.test('sign: the first version lists every category and source as added and writes the three files', async (t) => {
  const folder = await curatorFolder();
  const res = await folder.sign();
  t.equal(res.code, 0, res.err);
  t.match(res.out, new RegExp(`^signed registry 1\\.0\\.0 \\(sha256 [0-9a-f]{64}\\) as ${folder.pubkey}$`, 'm'));
  t.match(res.out, /^first signed version:$/m);
  t.match(res.out, /^ {2}added category rust-learning$/m);
  t.match(res.out, /^ {2}added source rust-learning #1 \(https:\/\/doc\.rust-lang\.org\/book\/\)$/m);
  t.match(res.out, /wrote registry\.history\.json \(1 entry\), registry\.signature\.json and registry\.signed\.json/);
  t.match(res.out, `CURATOR_PUBKEY=${folder.pubkey}`);
  const history = JSON.parse(await readFile(folder.files.history, 'utf8'));
  t.equal(history.length, 1);
  t.equal(history[0].previous, null, 'the first entry has no predecessor');
  const signature = JSON.parse(await readFile(folder.files.signature, 'utf8'));
  t.match(signature, { algorithm: 'ed25519', canonicalization: 'RFC8785', publicKey: folder.pubkey, version: '1.0.0', signedBy: 'curator', sha256: history[0].sha256 });
  const verified = await cli('verify', folder.registry, '--pubkey', folder.pubkey);
  t.equal(verified.code, 0, verified.err);
  t.match(verified.out, /^OK registry 1\.0\.0 from .*registry\.json is signed by .*, with a verified history of 1 entry/);
});

t.test('sign: the next version prints what changed, in the words diff and the history use', async (t) => {
  const folder = await signedTwice();
  const history = JSON.parse(await readFile(folder.files.history, 'utf8'));
  t.equal(history.length, 2);
  t.same(history[1].changes, [{ change: 'changed', category: 'rust-learning', rank: 2, url: 'https://github.com/rust-lang/rustlings', fields: ['why'] }]);
  await nextVersion(folder, '1.2.0', (s) => s.replace('https://www.zero2prod.com/', 'https://www.zero2prod.com/book/'));
  const diff = await cli('diff', folder.files.signed, folder.registry);
  t.equal(diff.code, 0);
  t.match(diff.out, /\(1\.1\.0\) -> .*\(1\.2\.0\): 2 changes/);
  t.match(diff.out, /^ {2}removed source rust-learning #3 \(https:\/\/www\.zero2prod\.com\/\)$/m);
  t.match(diff.out, /^ {2}added source rust-learning #3 \(https:\/\/www\.zero2prod\.com\/book\/\)$/m);
  const signed = await folder.sign();
  t.equal(signed.code, 0, signed.err);
  t.match(signed.out, /^changes since 1\.1\.0:\n {2}removed source rust-learning #3 .*\n {2}added source rust-learning #3 /m);
  const again = await cli('diff', folder.files.signed, folder.registry);
  t.match(again.out, /: no changes$/);
  t.match((await cli('diff', folder.registry)).err, /^usage: three-good-sources diff/);
  t.match((await cli('diff', folder.registry, join(folder.dir, 'missing.json'))).err, /missing\.json: registry: cannot read the file \(ENOENT\)[\s\S]*FAIL only two valid registries/);
});

t.test('diff reads a server by its URL as well as files, and says when a version was not raised (issue 24, item 14)', async (t) => {
  const folder = await signedTwice();
  const app = await build(t);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const served = await cli('diff', `${base}/`, folder.registry);
  t.equal(served.code, 0, served.err);
  t.match(served.out, new RegExp(`^${base.replace(/[.]/g, '\\.')}/ \\(1\\.0\\.0\\) -> .*registry\\.json \\(1\\.1\\.0\\): \\d+ changes?`, 'm'), 'a base URL reads its /registry');
  const byPath = await cli('diff', `${base}/registry`, `${base}/registry`);
  t.match(byPath.out, /: no changes$/m, 'the URL of a registry document, as it is');
  await folder.edit((s) => s.replace('Exercises first. ', 'Exercises last. '));
  const unraised = await cli('diff', folder.files.signed, folder.registry);
  t.equal(unraised.code, 0);
  t.match(unraised.out, /^warning version not raised: .*registry\.json has changes but version 1\.1\.0, not greater than 1\.1\.0; raise "version" \(e\.g\. 1\.1\.1\) before signing$/m);
  const same = await cli('diff', folder.files.signed, folder.files.signed);
  t.notMatch(same.out, /version not raised/, 'no changes, no warning');
  const down = await cli('diff', 'http://127.0.0.1:9/', folder.registry);
  t.equal(down.code, 1);
  t.match(down.err, /^error http:\/\/127\.0\.0\.1:9\/: registry: cannot download http:\/\/127\.0\.0\.1:9\/registry \(unreachable/m);
});

t.test('sign: a version that does not increase is refused and nothing is written', async (t) => {
  const folder = await signedTwice();
  const before = await readFile(folder.files.history, 'utf8');
  for (const version of ['1.1.0', '1.0.9', '1.1.0+build.2', '1.1.0-rc.1']) {
    await nextVersion(folder, version, (s) => s.replace('Exercises first. ', 'Exercises come first. '));
    const res = await folder.sign();
    t.equal(res.code, 1, version);
    t.match(res.err, new RegExp(`^FAIL version ${version.replace(/[.+]/g, '\\$&')} is not greater than the last signed version 1\\.1\\.0: raise "version" in .* \\(semantic versioning, e\\.g\\. 1\\.1\\.1\\); nothing was signed$`), version);
  }
  t.equal(await readFile(folder.files.history, 'utf8'), before, 'the history is untouched');
  await nextVersion(folder, '1.1.1-rc.1');
  t.equal((await folder.sign()).code, 0, 'a pre-release of a higher version is greater');
});

t.test('sign: signing the newest version again rewrites its signature and copy (finishing an interrupted sign)', async (t) => {
  const folder = await signedTwice();
  const history = await readFile(folder.files.history, 'utf8');
  await rm(folder.files.signature);
  await rm(folder.files.signed);
  const res = await folder.sign();
  t.equal(res.code, 0);
  t.match(res.out, /^registry 1\.1\.0 is already the newest signed version \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\); wrote registry\.signature\.json and registry\.signed\.json again$/);
  t.equal(await readFile(folder.files.history, 'utf8'), history, 'no new entry');
  t.equal((await cli('verify', folder.registry, '--pubkey', folder.pubkey)).code, 0);
});

t.test('sign: a write that fails leaves whole files, and running sign again finishes', async (t) => {
  const folder = await signedTwice();
  await nextVersion(folder, '1.2.0');
  await rm(folder.files.signature);
  await mkdir(folder.files.signature); // a directory where the signature goes: its rename fails
  const res = await folder.sign();
  t.equal(res.code, 1);
  t.match(res.err, /^FAIL cannot write beside .*registry\.json \(E[A-Z]+\); run sign again once it can$/);
  t.same((await readdir(folder.dir)).filter((f) => f.endsWith('.tmp')), [], 'no temporary file is left behind');
  JSON.parse(await readFile(folder.files.history, 'utf8'));
  await rm(folder.files.signature, { recursive: true });
  const again = await folder.sign();
  t.equal(again.code, 0, again.err);
  t.match(again.out, /already the newest signed version/);
  t.equal((await cli('verify', folder.registry, '--pubkey', folder.pubkey)).code, 0);
});

t.test('sign: each refusal says what and where in one line, never the file contents', async (t) => {
  const folder = await curatorFolder();
  const secret = 'not-a-key-but-secret-text';
  await writeFile(join(folder.dir, 'bad.key'), secret);
  const badKey = await cli('sign', folder.registry, '--key', join(folder.dir, 'bad.key'));
  t.equal(badKey.code, 1);
  t.match(badKey.err, /^FAIL .*bad\.key is not a curator key: keygen writes 64 hexadecimal characters \(the Ed25519 seed\); nothing was signed$/);
  t.notMatch(badKey.err, secret);
  t.match((await cli('sign', folder.registry, '--key', join(folder.dir, 'none.key'))).err, /^FAIL cannot read the key file .*none\.key \(ENOENT\); nothing was signed$/);
  t.match((await cli('sign', folder.registry)).err, /^usage: three-good-sources sign/);

  const original = await folder.read();
  await folder.edit((s) => s.replace(`"pubkey": "${folder.pubkey}"`, '"pubkey": ""'));
  t.match((await folder.sign()).err, new RegExp(`curator\\.pubkey is empty; write this key's public key there first: "pubkey": "${folder.pubkey}"; nothing was signed$`));
  const other = otherPublicKey();
  await folder.edit((s) => s.replace('"pubkey": ""', `"pubkey": "${other}"`));
  t.match((await folder.sign()).err, new RegExp(`curator\\.pubkey is ${other}, but .*curator\\.key is the key of ${folder.pubkey}`));
  await writeFile(folder.registry, original.replace('"type": "book"', '"type": "podcast"'));
  const rule = await folder.sign();
  t.match(rule.err, /^error categories\.rust-learning\.source rank 1\.type: /m);
  t.match(rule.err, /FAIL .*registry\.json breaks the registry rules; nothing was signed$/);
  await writeFile(folder.registry, Buffer.from(original.replace('Rust Learning', 'Rust Learning café'), 'latin1'));
  t.match((await folder.sign()).err, /^error registry: not UTF-8 text \(save the file as UTF-8\)$/m, 'another encoding is refused, not signed with U+FFFD in it');
  await writeFile(folder.registry, original);
  t.same((await readdir(folder.dir)).sort(), ['bad.key', 'curator.key', 'registry.json'], 'no refusal wrote anything');
});

t.test('sign: a history that does not verify, or lost files, are never extended', async (t) => {
  const folder = await signedTwice();
  await nextVersion(folder, '1.2.0');
  const history = await readFile(folder.files.history, 'utf8');

  await writeFile(folder.files.history, history.replace('"fields":["why"]', '"fields":["name"]'));
  t.match((await folder.sign()).err, /^FAIL registry\.history\.json does not verify, so it is not extended: entry 2 \(version 1\.1\.0\): its signature does not verify/);
  await writeFile(folder.files.history, history.slice(0, history.length / 2));
  t.match((await folder.sign()).err, /does not verify, so it is not extended: .*truncated/);
  await rm(folder.files.history);
  t.match((await folder.sign()).err, /registry\.history\.json is missing but registry\.signature\.json exists: restore the history rather than start a new one/);
  await writeFile(folder.files.history, history);

  const copy = await readFile(folder.files.signed);
  await rm(folder.files.signed);
  t.match((await folder.sign()).err, /cannot tell what changed since 1\.1\.0: registry\.signed\.json \(the copy of the last signed registry\) is missing; restore it/);
  await writeFile(folder.files.signed, Buffer.concat([copy, Buffer.from(' ')]));
  t.match((await folder.sign()).err, /is not the one the history names/);
  await writeFile(folder.files.signed, copy);
  t.equal(await readFile(folder.files.history, 'utf8'), history, 'the history is as it was');
  t.equal((await folder.sign()).code, 0, 'once restored, sign goes on');
});

t.test('verify --known: a rewritten history and a replayed older version fail, an extension passes', async (t) => {
  const folder = await curatorFolder();
  await folder.sign();
  const v1 = join(folder.dir, 'v1');
  await mkdir(v1);
  for (const f of ['registry.json', 'registry.signature.json', 'registry.history.json', 'registry.signed.json']) await cp(join(folder.dir, f), join(v1, f));
  const fork = join(folder.dir, 'fork');
  await cp(v1, fork, { recursive: true });
  await nextVersion(folder, '1.1.0', (s) => s.replace('Exercises', 'Exercises'));
  await folder.sign();
  const known = join(folder.dir, 'known.json');
  const verify = (file: string) => cli('verify', file, '--pubkey', folder.pubkey, '--known', known);

  t.match((await verify(join(v1, 'registry.json'))).out, /first check: remembered 1\.0\.0/);
  t.match((await verify(folder.registry)).out, /extends the 1\.0\.0 seen before by 1/);
  t.match((await verify(folder.registry)).out, /unchanged since last check/);

  const replay = await verify(join(v1, 'registry.json'));
  t.equal(replay.code, 1);
  t.match(replay.err, /^FAIL replayed older version: served 1\.0\.0 with 1 history entries, but version 1\.1\.0 with 2 was seen before/);

  // The same key signs another 1.1.0 on top of 1.0.0: a valid chain, but not the one seen.
  const forkRegistry = join(fork, 'registry.json');
  await writeFile(forkRegistry, (await readFile(forkRegistry, 'utf8')).replace('"version": "1.0.0"', '"version": "1.1.0"').replace('Bitcoin Node Setup', 'Bitcoin Node Set-up'));
  t.equal((await cli('sign', forkRegistry, '--key', folder.keyFile)).code, 0);
  t.equal((await cli('verify', forkRegistry, '--pubkey', folder.pubkey)).code, 0, 'valid on its own');
  const rewrite = await verify(forkRegistry);
  t.equal(rewrite.code, 1);
  t.match(rewrite.err, /^FAIL rewritten history: entry 2 \(version 1\.1\.0\) is not the entry 1\.1\.0 seen before/);
  t.match((await verify(folder.registry)).out, /unchanged since last check/, 'a refusal kept what was seen');

  const seen = JSON.parse(await readFile(known, 'utf8'));
  await writeFile(known, JSON.stringify({ [folder.pubkey]: { ...seen[folder.pubkey], entries: 0 } }));
  t.match((await verify(folder.registry)).err, /^FAIL the --known file .*known\.json is not one verify wrote/, 'a hand-edited count');
  await writeFile(known, '{"x":');
  t.match((await verify(folder.registry)).err, /^FAIL the --known file .*known\.json is not one verify wrote/);
  t.match((await cli('verify', folder.registry, '--pubkey', folder.pubkey, '--known')).err, /^usage:/);
});

t.test('verify: a local registry changed after signing, or checked with another key, fails naming it', async (t) => {
  const folder = await signedTwice();
  await folder.edit((s) => s.replace('Exercises first. ', 'Exercises last. '));
  const changed = await cli('verify', folder.registry, '--pubkey', folder.pubkey);
  t.equal(changed.code, 1);
  t.match(changed.err, /^FAIL registry\.json was edited after version 1\.1\.0 was signed, and its version was not raised \(its SHA-256 is [0-9a-f]{64} \(version 1\.1\.0\); the signature covers [0-9a-f]{64} \(version 1\.1\.0\)\): raise "version" above 1\.1\.0 \(e\.g\. 1\.1\.1\), then sign it \(npx three-good-sources sign registry\.json --key <file>\)$/);
  // Following that one step works: raise the version, sign, verify.
  await folder.edit((s) => s.replace('"version": "1.1.0"', '"version": "1.1.1"'));
  const newer = await cli('verify', folder.registry, '--pubkey', folder.pubkey);
  t.match(newer.err, /^FAIL registry\.json is version 1\.1\.1, which is not signed yet; registry\.signature\.json covers version 1\.1\.0 \(.*\): sign it \(npx three-good-sources sign registry\.json --key <file>\)$/);
  t.equal((await folder.sign()).code, 0, 'the step it names succeeds');
  t.equal((await cli('verify', folder.registry, '--pubkey', folder.pubkey)).code, 0, 'and the registry verifies');
  await folder.edit((s) => s.replace('"version": "1.1.1"', '"version": "1.0.9"'));
  t.match((await cli('verify', folder.registry, '--pubkey', folder.pubkey)).err, /^FAIL registry\.json \(version 1\.0\.9\) is older than what registry\.signature\.json covers \(version 1\.1\.1\): the files do not belong together \(.*\); put back the registry that was signed \(registry\.signed\.json beside it holds its exact bytes\)$/);
  await folder.edit((s) => s.replace('"version": "1.0.9"', '"version": "1.1.1"'));
  const other = otherPublicKey();
  t.match((await cli('verify', folder.registry, '--pubkey', other)).err, new RegExp(`signature by another key \\(${folder.pubkey}; expected ${other} from --pubkey\\)`));
  t.match((await cli('verify', join(folder.dir, 'nope.json'), '--pubkey', other)).err, /^FAIL not a URL, and no such file: /);
});

t.test('verify against a curator-signed server: the history checked, and a broken, stale or straddled one refused', async (t) => {
  const folder = await signedTwice();
  const app = await build(t, { registryPath: folder.registry, curatorSeed: undefined, curatorPubkey: folder.pubkey });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const ok = await cli('verify', address, '--pubkey', folder.pubkey);
  t.equal(ok.code, 0, ok.err);
  t.match(ok.out, new RegExp(`^OK registry 1\\.1\\.0 from ${address}/ is signed by ${folder.pubkey}, with a verified history of 2 entries \\(sha256 [0-9a-f]{64}\\)$`));

  const get = async (url: string) => (await app.inject({ method: 'GET', url })).rawPayload;
  const [registry, signature, history] = await Promise.all([get('/registry'), get('/registry/signature'), get('/registry/history')]);
  const lines = history.toString().split('\n');
  const olderHistory = `${[lines[0], lines[1]!.replace(/,$/, ''), lines[3]].join('\n')}\n`;
  const fake = (historyBody: string | Buffer, etags: [string, string] = ['"a"', '"a"']) =>
    fakeServer(t, (req, res) => {
      const i = req.url === '/registry/signature' ? 1 : 0;
      res.setHeader('etag', etags[i]!);
      res.end(req.url === '/registry/history' ? historyBody : i === 1 ? signature : registry);
    });
  const broken = await cli('verify', await fake(history.toString().replace('"fields":["why"]', '"fields":["url"]')), '--pubkey', folder.pubkey);
  t.match(broken.err, /^FAIL broken history: .*\/registry\/history: entry 2 \(version 1\.1\.0\): its signature does not verify/);
  const stale = await cli('verify', await fake(olderHistory), '--pubkey', folder.pubkey);
  t.match(stale.err, /^FAIL history head is not the served registry: its newest entry is 1\.0\.0 \(sha256 [0-9a-f]{64}\), the server serves 1\.1\.0/);
  const straddled = await cli('verify', await fake(history, ['"a"', '"b"']), '--pubkey', folder.pubkey);
  t.match(straddled.err, /^FAIL the server changed its registry while we fetched it \(the ETags of \/registry and \/registry\/signature differ\); try again$/);
  const unwritable = await cli('verify', address, '--pubkey', folder.pubkey, '--known', join(folder.dir, 'no-such-folder', 'known.json'));
  t.match(unwritable.err, /^FAIL cannot write the --known file .*known\.json \(ENOENT\)$/);
});

t.test('sign refuses a registry that endorses its own curator', async (t) => {
  const folder = await curatorFolder();
  await folder.edit((s) => s.replace('"endorsements": []', `"endorsements": [{"pubkey": "${folder.pubkey}", "url": "https://example.org", "name": "Me", "since": "2026-01-01"}]`));
  const res = await folder.sign();
  t.equal(res.code, 1);
  t.match(res.err, /^error endorsement 1\.pubkey: a curator cannot endorse itself$/m);
});

t.test('check and sign apply FEDERATION_ALLOW_LOOPBACK_HTTP as the server does', async (t) => {
  const folder = await curatorFolder();
  await folder.edit((s) => s.replace('"endorsements": []', `"endorsements": [{"pubkey": "${otherPublicKey()}", "url": "http://127.0.0.1:3001", "name": "Local", "since": "2026-01-01"}]`));
  // Issue 24, item 8: the refusal names the variable that allows loopback peers, for check and sign alike.
  const loopbackOnlyWith = /endorsement 1\.url: must be an absolute https URL; http:\/\/127\.0\.0\.1:<port> and http:\/\/localhost:<port> are allowed only with FEDERATION_ALLOW_LOOPBACK_HTTP=true/m;
  t.match((await cli('check', folder.registry)).err, loopbackOnlyWith);
  t.match((await folder.sign()).err, loopbackOnlyWith);
  const saved = process.env.FEDERATION_ALLOW_LOOPBACK_HTTP;
  t.teardown(() => (saved === undefined ? delete process.env.FEDERATION_ALLOW_LOOPBACK_HTTP : (process.env.FEDERATION_ALLOW_LOOPBACK_HTTP = saved)));
  process.env.FEDERATION_ALLOW_LOOPBACK_HTTP = 'true';
  t.equal((await cli('check', folder.registry)).code, 0);
  t.equal((await folder.sign()).code, 0);
});

t.test('diff shows what a changed field held and holds now: old and new text, and what a list lost and gained (issue 33, item 13)', async (t) => {
  const folder = await signedTwice();
  await nextVersion(folder, '1.2.0', (s) => {
    const r = JSON.parse(s);
    const rust = r.categories['rust-learning'];
    rust.description = 'Learning Rust.';
    rust.keywords = [...rust.keywords.slice(1), 'cargo workspaces'];
    return JSON.stringify(r, null, 2);
  });
  const registry = JSON.parse(await readFile(folder.files.signed, 'utf8'));
  const before = registry.categories['rust-learning'];
  const d = await cli('diff', folder.files.signed, folder.registry);
  t.equal(d.code, 0, d.err);
  t.match(d.out, `  changed category rust-learning: description, keywords\n      description: ${JSON.stringify(before.description)}\n                   -> "Learning Rust."\n      keywords: removed ${JSON.stringify(before.keywords[0])}; added "cargo workspaces"`);
});

t.test('sign --note: the entry carries the note, signed with the rest; a note of control characters or too long is refused (issue 32)', async (t) => {
  const folder = await curatorFolder();
  const res = await cli('sign', folder.registry, '--key', folder.keyFile, '--note', 'from demand: 3 questions, 1 category');
  t.equal(res.code, 0, res.err);
  t.match(res.out, /^note: from demand: 3 questions, 1 category$/m);
  const history = JSON.parse(await readFile(folder.files.history, 'utf8'));
  t.equal(history[0].note, 'from demand: 3 questions, 1 category');
  t.equal((await cli('verify', folder.registry, '--pubkey', folder.pubkey)).code, 0, 'the history verifies');
  history[0].note = 'written by hand later';
  await writeFile(folder.files.history, `[\n${JSON.stringify(history[0])}\n]\n`);
  const altered = await cli('verify', folder.registry, '--pubkey', folder.pubkey);
  t.equal(altered.code, 1, 'a note changed after signing breaks the entry');
  for (const bad of ['two\nlines', 'x'.repeat(201), '']) {
    const refused = await cli('sign', folder.registry, '--key', folder.keyFile, '--note', bad);
    t.equal(refused.code, 1);
    t.match(refused.err, /^FAIL --note must be one line of 1 to 200 characters without control characters; nothing was signed$/);
  }
  t.match((await cli('sign', folder.registry, '--key', folder.keyFile, '--note')).err, /^usage: three-good-sources sign/);
});
