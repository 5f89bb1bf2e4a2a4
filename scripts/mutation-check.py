# Mutation check of the federation and provenance checks (issue 22): each check is deleted in turn,
# the tests that guard its module are run, and the check is put back; a check whose deletion no
# test notices is reported SURVIVED. Run from the project root with Node 22 first on PATH:
#   python3 scripts/mutation-check.py          (all; about 25 minutes on 2 cores)
#   python3 scripts/mutation-check.py 3 28     (only those, by their place in the list)
# It edits files under src/ while it runs: run nothing else meanwhile. Python, not TypeScript:
# it drives npx tap as a user would, and has no part in the server.
import subprocess, sys, os
ROOT=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FED=['test/src/federation/verify.test.ts','test/src/federation/peers.test.ts','test/src/federation/federation.test.ts','test/src/federation/verifier.test.ts']
FETCH=['test/src/federation/fetch.test.ts','test/src/federation/peers.test.ts','test/src/federation/federation.test.ts']
LIM=['test/src/federation/limits.test.ts']
PROV=['test/src/provenance/','test/src/cli/cli.test.ts','test/src/cli/sign.test.ts','test/src/federation/verify.test.ts','test/src/federation/peers.test.ts']
M=[
 # src/federation/verify.ts
 ('src/federation/verify.ts',"if (text === undefined) throw new PeerRefused(`its ${name} document is not valid UTF-8`);","void text;",FED,'peer: UTF-8'),
 ('src/federation/verify.ts',"if (doc.publicKey !== endorsedKey) throw","if (false) throw",FED,'peer: signed by the endorsed key'),
 ('src/federation/verify.ts',"if (sha256 !== doc.sha256) throw","if (false) throw",FED,'peer: digest matches'),
 ('src/federation/verify.ts',"if (!verifySignature(docs.registry, doc.signature, endorsedKey)) throw","if (false) throw",FED,'peer: Ed25519 signature'),
 ('src/federation/verify.ts',"if (semver.valid(doc.version) === null || doc.version !== semver.clean(doc.version)) throw","if (false) throw",FED,'peer: semantic version in the signature document'),
 ('src/federation/verify.ts',"if (inUse !== undefined) refuseOlderVersion(inUse, doc.version);","",FED,'peer: version rollback'),
 ('src/federation/verify.ts',"if (historyText.split('\\n', PEER_LIMITS.historyEntries + 3).length > PEER_LIMITS.historyEntries + 2) throw","if (false) throw",FED,'peer: history length'),
 ('src/federation/verify.ts',"if (!jsonDepthWithin(docs.history, PEER_LIMITS.depth)) throw","if (false) throw",FED,'peer: history depth'),
 ('src/federation/verify.ts',"if (inUse?.head !== undefined) refuseRewrittenHistory(inUse, hasHistory ? historyText : '[]');","",FED,'peer: history rewrite'),
 ('src/federation/verify.ts',"if (!jsonDepthWithin(docs.registry, PEER_LIMITS.depth)) throw","if (false) throw",FED,'peer: registry depth'),
 ('src/federation/verify.ts',"if (canonicalize(data) !== texts.registry) throw","if (false) throw",FED,'peer: canonical form'),
 ('src/federation/verify.ts',"if (Object.keys(categories).length > PEER_LIMITS.categories) throw","if (false) throw",FED,'peer: category count'),
 ('src/federation/verify.ts',"if (overfull !== undefined) throw new PeerRefused(overfull);","",FED,'peer: list lengths'),
 ('src/federation/verify.ts',"if (longestText(data) > PEER_LIMITS.textLength) throw","if (false) throw",FED,'peer: text length'),
 ('src/federation/verify.ts',"if (!checked.ok) throw new PeerRefused(`its registry breaks our rules:","if (!checked.ok) return checked as never; if (false) throw new PeerRefused(`its registry breaks our rules:",FED,'peer: registry rules'),
 ('src/federation/verify.ts',"if (registry.curator.pubkey !== endorsedKey) throw","if (false) throw",FED,'peer: curator key in the registry'),
 ('src/federation/verify.ts',"if (registry.version !== doc.version) throw","if (false) throw",FED,'peer: version matches the signature document'),
 ('src/federation/verify.ts',"if (!history.ok) throw new PeerRefused(`broken history: ${history.problem}`);","if (!history.ok) return { registry, sha256, version: registry.version, signedBy: doc.signedBy, history: [] };",FED,'peer: history verifies'),
 ('src/federation/verify.ts',"if (head.sha256 !== sha256) throw","if (false) throw",FED,'peer: history ends at the registry'),
 ('src/federation/verify.ts',"const registry = peerRegistryForDisplay(checked.registry);","const registry = checked.registry;",FED,'peer: text made one line'),
 ('src/federation/verifier.ts',"if (docs[name].length > limit) return Promise.reject","if (false) return Promise.reject",FED,'verifier: document sizes'),
 ('src/federation/fetch.ts',"if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {","if (false) {",FETCH,'fetch: no content encoding'),
 ('src/federation/fetch.ts',"if (limits.requireJson && !JSON_TYPE.test(type ?? '')) return fail","if (false) return fail",FETCH,'fetch: JSON content type'),
 ('src/federation/fetch.ts',"if (response.statusCode !== 200) return fail","if (false) return fail",FETCH,'fetch: status 200'),
 ('src/federation/fetch.ts',"if (Number(response.headers['content-length'] ?? Number.NaN) > limits.maxBytes) return tooBig();","",FETCH,'fetch: declared length'),
 ('src/federation/fetch.ts',"if (size > limits.maxBytes) return tooBig();","",FETCH,'fetch: streamed size'),
 ('src/federation/fetch.ts',"if (next === undefined || next.origin !== start.origin || !peerUrlAllowed(next.href, limits.allowLoopbackHttp)) {","if (next === undefined) {",FETCH,'fetch: same-origin redirects'),
 ('src/federation/fetch.ts',"if (hops + 1 > limits.maxRedirects) {","if (false) {",FETCH,'fetch: redirect count'),
 ('src/matcher/matcher.ts',"if (limits !== undefined && Math.max(terms.size, spellings.size) > limits.words) throw","if (false) throw",LIM,'index: distinct words'),
 ('src/matcher/matcher.ts',"for (const list of index.values()) if (list.length > limits.phrasesPerWord) throw","for (const list of index.values()) if (false) throw",LIM,'index: phrases per word'),
 ('src/matcher/spelling.ts',"if (options.maxBucket !== undefined && list.length >= options.maxBucket) {","if (false) {",LIM,'index: spelling bucket'),
 # provenance
 ('src/provenance/signature.ts',"return verify(null, bytes, publicKeyObject(raw), sig);","void verify; void publicKeyObject; return true;",PROV,'provenance: Ed25519 verification'),
 ('src/provenance/signature.ts',"if (raw === undefined || sig.length !== 64 || sig.toString('base64') !== signature) return false;","if (raw === undefined) return false;",PROV,'provenance: signature encoding'),
 ('src/provenance/signature.ts',"if (!signatureDocumentBytes(exact).equals(bytes)) return","if (false) return",PROV,'provenance: signature document exact form'),
 ('src/provenance/history.ts',"if (raw.publicKey !== publicKey) return","if (false) return",PROV,'history: entry key'),
 ('src/provenance/history.ts',"if (!verifySignature(canonicalBytes(signedPart(raw)), raw.signature, publicKey)) {","if (false) {",PROV,'history: entry signature'),
 ('src/provenance/history.ts',"if (raw.previous !== expected) {","if (false) {",PROV,'history: link to the previous entry'),
 ('src/provenance/history.ts',"if (before !== undefined && !semver.gt(raw.version, before.version)) {","if (false) {",PROV,'history: versions increase'),
 ('src/provenance/history.ts',"if (before !== undefined && raw.date < before.date) return","if (false) return",PROV,'history: dates never go back'),
 ('src/provenance/history.ts',"if (text !== formatHistory(entries as HistoryEntry[])) return","if (false) return",PROV,'history: exact form'),
 ('src/provenance/curator-signed.ts',"if (doc.publicKey !== publicKey) return fail","if (false) return fail",PROV,'curator-signed: signature key'),
 ('src/provenance/curator-signed.ts',"if (doc.signedBy !== 'curator') return fail","if (false) return fail",PROV,'curator-signed: signed by the curator'),
 ('src/provenance/curator-signed.ts',"if (registry.curator.pubkey !== publicKey) {","if (false) {",PROV,'curator-signed: curator key in the registry'),
 ('src/provenance/curator-signed.ts',"if (sha256 !== doc.sha256 || registry.version !== doc.version) {","if (false) {",PROV,'curator-signed: digest and version'),
 ('src/provenance/curator-signed.ts',"if (!verifySignature(canonical, doc.signature, publicKey)) return fail","if (false) return fail",['test/src/catalog.test.ts','test/e2e/signed-registry.test.ts'],'curator-signed: signature'),
 ('src/provenance/curator-signed.ts',"if (!history.ok) return fail","if (false) return fail",['test/src/catalog.test.ts','test/e2e/signed-registry.test.ts'],'curator-signed: history verifies'),
 ('src/provenance/curator-signed.ts',"if (head.sha256 !== sha256 || head.version !== registry.version) {","if (false) {",PROV,'curator-signed: history head'),
 ('src/catalog.ts',"if (served !== undefined) refuseRollback(served.history, check.signed.history, basename(files.history));","",['test/src/catalog.test.ts','test/e2e/signed-registry.test.ts'],'reload: no rollback'),
 ('src/cli/verify.ts',"if (!verifySignature(body, doc.signature, pubkey)) throw","if (false) throw",PROV,'verify CLI: signature'),
 ('src/cli/verify.ts',"if (!jsonDepthWithin(body, MAX_DEPTH)) throw","if (false) throw",PROV,'verify CLI: depth'),
]
only = sys.argv[1:]
env=dict(os.environ)
killed=survived=0
for i,(f,old,new,tests,name) in enumerate(M):
    if only and str(i) not in only: continue
    path=os.path.join(ROOT,f); src=open(path).read()
    if src.count(old)!=1:
        print(f'SKIP {name}: pattern found {src.count(old)} times', flush=True); continue
    open(path,'w').write(src.replace(old,new))
    try:
        if 'test/e2e/signed-registry.test.ts' in tests: subprocess.run(['npm','run','build'],cwd=ROOT,env=env,capture_output=True)
        r=subprocess.run(['npx','tap','--disable-coverage','--reporter=silent',*tests],cwd=ROOT,env=env,capture_output=True,text=True,timeout=600)
        ok = r.returncode!=0
    finally:
        open(path,'w').write(src)
        if 'test/e2e/signed-registry.test.ts' in tests: subprocess.run(['npm','run','build'],cwd=ROOT,env=env,capture_output=True)
    killed+=ok; survived+=not ok
    print(f'{"killed  " if ok else "SURVIVED"} {name}', flush=True)
print(f'{killed} killed, {survived} survived')
