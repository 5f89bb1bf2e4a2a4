# Mutation check of the trust checks (issues 22 and 31): federation, provenance, the demand
# signal's privacy and robustness, and the origin and host policy. Each check is changed in turn
# (usually deleted), the tests that guard its module are run, and the file is put back. A mutant
# counts as killed only when an assertion fails: tap runs without coverage (its floors would fail
# a partial run whatever the assertions say), its TAP output is read, and a test that throws,
# times out or fails to load kills nothing. A pattern that no longer occurs exactly once in its
# file stops the run (exit 2): a check renamed must be renamed here too, never skipped.
# Run from the project root with Node 22 first on PATH, nothing else running:
#   python3 scripts/mutation-check.py          (all; about 40 minutes on 2 cores)
#   python3 scripts/mutation-check.py 3 28     (only those, by their place in the list)
# It edits files under src/ and plugins/ while it runs. Python, not TypeScript: it drives npx tap
# as a user would, and has no part in the server.
import subprocess, sys, os, re
ROOT=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FED=['test/src/federation/verify.test.ts','test/src/federation/peers.test.ts','test/src/federation/federation.test.ts','test/src/federation/verifier.test.ts']
FETCH=['test/src/federation/fetch.test.ts','test/src/federation/peers.test.ts','test/src/federation/federation.test.ts','test/e2e/demand-cli-hostile.test.ts']
LIM=['test/src/federation/limits.test.ts']
PROV=['test/src/provenance/','test/src/cli/cli.test.ts','test/src/cli/sign.test.ts','test/src/federation/verify.test.ts','test/src/federation/peers.test.ts']
DEMAND=['test/src/demand/','test/plugins/routes/demand-routes.test.ts','test/src/clients/','test/plugins/support/load-protection.test.ts']
DEMAND_CLI=['test/src/cli/demand.test.ts','test/e2e/demand-cli-hostile.test.ts']
ORIGIN=['test/plugins/infrastructure/origin-policy.test.ts','test/plugins/routes/discovery-routes.test.ts','test/plugins/routes/page-routes.test.ts']
BUILT=('test/e2e/',)  # tests that run dist/: the mutant is built first, and the build restored after
M=['test/src/federation/limits.test.ts']
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
 ('src/federation/verify.ts',"if (canonicalize(data) !== texts.registry) {","if (false) {",FED,'peer: canonical form'),
 ('src/federation/verify.ts',"if (Object.keys(categories).length > PEER_LIMITS.categories) throw","if (false) throw",FED,'peer: category count'),
 ('src/federation/verify.ts',"if (overfull !== undefined) throw new PeerRefused(overfull);","",FED,'peer: list lengths'),
 ('src/federation/verify.ts',"if (longestText(data) > PEER_LIMITS.textLength) throw","if (false) throw",FED,'peer: text length'),
 ('src/federation/verify.ts',"if (!checked.ok) throw new PeerRefused(`its registry breaks our rules:","if (!checked.ok) return checked as never; if (false) throw new PeerRefused(`its registry breaks our rules:",FED,'peer: registry rules'),
 ('src/federation/verify.ts',"if (registry.curator.pubkey !== endorsedKey) throw","if (false) throw",FED,'peer: curator key in the registry'),
 ('src/federation/verify.ts',"if (registry.version !== doc.version) throw","if (false) throw",FED,'peer: version matches the signature document'),
 ('src/federation/verify.ts',"if (!history.ok) throw new PeerRefused(history.tooMany ?","if (!history.ok) return { registry, sha256, version: registry.version, signedBy: doc.signedBy, history: [] }; if (false) throw new PeerRefused(history.tooMany ?",FED,'peer: history verifies'),
 ('src/federation/verify.ts',"if (head.sha256 !== sha256) throw","if (false) throw",FED,'peer: history ends at the registry'),
 ('src/federation/verify.ts',"const registry = peerRegistryForDisplay(checked.registry);","const registry = checked.registry;",FED,'peer: text made one line'),
 ('src/federation/verifier.ts',"if (docs[name].length > limit) return Promise.reject","if (false) return Promise.reject",FED,'verifier: document sizes'),
 ('src/federation/fetch.ts',"if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {","if (false) {",FETCH,'fetch: no content encoding'),
 ('src/federation/fetch.ts',"if (limits.requireJson && !JSON_TYPE.test(type ?? '')) return fail","if (false) return fail",FETCH,'fetch: JSON content type'),
 ('src/federation/fetch.ts',"if (status !== 200 && limits.anyStatus !== true) return fail","if (false) return fail",FETCH,'fetch: status 200'),
 ('src/federation/fetch.ts',"if (Number(response.headers['content-length'] ?? Number.NaN) > limits.maxBytes) return tooBig();","",FETCH,'fetch: declared length'),
 ('src/federation/fetch.ts',"if (size > limits.maxBytes) return tooBig();","",FETCH,'fetch: streamed size'),
 ('src/federation/fetch.ts',"if (next === undefined || next.origin !== start.origin || !peerUrlAllowed(next.href, limits.allowLoopbackHttp)) {","if (next === undefined) {",FETCH,'fetch: same-origin redirects'),
 ('src/federation/fetch.ts',"if (hops + 1 > limits.maxRedirects) {","if (false) {",FETCH,'fetch: redirect count'),
 ('src/matcher/index.ts',"if (limits !== undefined && Math.max(terms.size, words.spellings.size) > limits.words) throw","if (limits !== undefined && Math.max(terms.size, words.spellings.size) < 0 && Math.max(terms.size, words.spellings.size) > limits.words) throw",LIM,'index: distinct words'),
 ('src/matcher/index.ts',"for (const list of index.values()) if (list.length > limits.phrasesPerWord) throw","for (const list of index.values()) if (list.length < 0 && list.length > limits.phrasesPerWord) throw",LIM,'index: phrases per word'),
 ('src/matcher/spelling.ts',"if (n > maxBucket) throw new SpellingBucketFull(","if (n < 0) throw new SpellingBucketFull(",LIM,'index: spelling bucket'),
 # provenance
 ('src/provenance/signature.ts',"return verify(null, bytes, publicKeyObject(raw), sig);","void verify; void publicKeyObject; return true;",PROV,'provenance: Ed25519 verification'),
 ('src/provenance/signature.ts',"if (raw === undefined || sig.length !== 64 || sig.toString('base64') !== signature) return false;","if (raw === undefined) return false;",PROV,'provenance: signature encoding'),
 ('src/provenance/signature.ts',"if (!signatureDocumentBytes(exact).equals(bytes)) return","if (!signatureDocumentBytes(exact).equals(bytes) && false) return",PROV,'provenance: signature document exact form'),
 ('src/provenance/history.ts',"if (raw.publicKey !== publicKey) return","if (false) return",PROV,'history: entry key'),
 ('src/provenance/history.ts',"if (!verifySignature(canonicalBytes(signedPart(raw)), raw.signature, publicKey)) {","if (false) {",PROV,'history: entry signature'),
 ('src/provenance/history.ts',"if (raw.previous !== expected) {","if (false) {",PROV,'history: link to the previous entry'),
 ('src/provenance/history.ts',"if (before !== undefined && !semver.gt(raw.version, before.version)) {","if (false) {",PROV,'history: versions increase'),
 ('src/provenance/history.ts',"if (before !== undefined && raw.date < before.date) return","if (false) return",PROV,'history: dates never go back'),
 ('src/provenance/history.ts',"if (text !== formatHistory(entries as HistoryEntry[])) return","if (false) return",PROV,'history: exact form'),
 ('src/provenance/curator-signed.ts',"if (doc.publicKey !== publicKey) return fail","if (false) return fail",PROV,'curator-signed: signature key'),
 ('src/provenance/curator-signed.ts',"if (doc.signedBy !== 'curator') return fail","if (false) return fail",PROV,'curator-signed: signed by the curator'),
 ('src/provenance/curator-signed.ts',"if (registry.curator.pubkey !== publicKey) {","if (false) {",PROV,'curator-signed: curator key in the registry'),
 ('src/provenance/curator-signed.ts',"if (sha256 !== doc.sha256 || registry.version !== doc.version) return fail","if (false) return fail",PROV,'curator-signed: digest and version'),
 ('src/provenance/curator-signed.ts',"if (!verifySignature(canonical, doc.signature, publicKey)) return fail","if (false) return fail",['test/src/catalog.test.ts','test/e2e/signed-registry.test.ts'],'curator-signed: signature'),
 ('src/provenance/curator-signed.ts',"if (!history.ok) return fail","if (false) return fail",['test/src/catalog.test.ts','test/e2e/signed-registry.test.ts'],'curator-signed: history verifies'),
 ('src/provenance/curator-signed.ts',"if (head.sha256 !== sha256 || head.version !== registry.version) {","if (false) {",PROV,'curator-signed: history head'),
 ('src/catalog.ts',"if (served !== undefined) refuseRollback(served.history, check.signed.history, basename(files.history));","",['test/src/catalog.test.ts','test/e2e/signed-registry.test.ts'],'reload: no rollback'),
 ('src/cli/verify.ts',"if (!verifySignature(body, doc.signature, pubkey)) throw","if (false) throw",PROV,'verify CLI: signature'),
 ('src/cli/verify.ts',"if (!jsonDepthWithin(body, MAX_DEPTH)) throw","if (false) throw",PROV,'verify CLI: depth'),
 # the demand signal (issue 31)
 ('src/demand/memory-store.ts',"if (most >= this.#limits.minClients) items.push","if (most >= 1) items.push",DEMAND,'demand: k in memory'),
 ('src/demand/memory-store.ts',"if (clientsSeen(item) >= this.#limits.minClients) day.items.keep(item);","",DEMAND,'demand: shown items kept from eviction'),
 ('src/demand/space-saving.ts',"if (this.#entries.size - this.#kept.size >= this.capacity) {","if (this.#entries.size >= this.capacity) {",DEMAND,'demand: kept items beside the capacity'),
 ('src/demand/space-saving.ts',"if (this.#kept.size >= this.capacity || this.#entries.get(entry.key) !== entry) return false;","if (this.#entries.get(entry.key) !== entry) return false;",DEMAND,'demand: at most capacity kept'),
 ('src/demand/redis-store.ts',"if (most >= this.#limits.minClients) items.push({ key: texts","if (most >= 1) items.push({ key: texts",DEMAND,'demand: k in Redis'),
 ('src/demand/redis-store.ts',"  if shown and not redis.call('ZSCORE', kept, h) and redis.call('ZCARD', kept) < cap then","  if false then",DEMAND,'demand: shown items kept in Redis'),
 ('src/demand/client-bucket.ts',"return bucketOf(this.#salt, clientKey(address, this.ipv6Prefix));","return bucketOf(this.#salt, address);",DEMAND,'demand: one client per network'),
 ('src/demand/client-bucket.ts',"return hash('sha256', `${salt}\\u0000${client}`, 'buffer')[0]! & (BUCKETS - 1);","return hash('sha256', client, 'buffer')[0]! & (BUCKETS - 1);",DEMAND,'demand: salted buckets'),
 ('src/clients/client-key.ts',"const network = ipaddr.IPv6.networkAddressFromCIDR(`${v6.toNormalizedString()}/${ipv6Prefix}`);","const network = v6;",DEMAND,'client: IPv6 network'),
 ('src/clients/client-key.ts',"if (family === 0) return UNREADABLE_CLIENT;","if (family === 0) return bare;",DEMAND,'client: junk is one client'),
 ('src/clients/client-key.ts',"const bare = withoutPort(address.trim());","const bare = address.trim();",DEMAND,'client: port stripped'),
 ('src/app.ts',"    ipv6Prefix: config.demandIpv6Prefix,\n","",DEMAND,'demand: the operator\'s prefix'),
 ('plugins/support/load-protection.ts',"keyGenerator: (request) => clientKey(request.ip, options.rateLimitIpv6Prefix),","keyGenerator: (request) => request.ip,",DEMAND,'rate limit: one client per network'),
 ('plugins/app.ts',"    await protect(limited, config);\n","",DEMAND,'rate limit: one budget across routes'),
 ('plugins/routes/page-routes.ts',"&& askedByReader(request)) demand","&& true) demand",DEMAND,'demand: page searches other sites make'),
 ('plugins/routes/demand-routes.ts',"return presented !== undefined && timingSafeEqual(digest(presented), expected);","return presented !== undefined;",DEMAND,'demand: the token'),
 ('src/cli/demand.ts',"const problem = demandReportProblem(report);","const problem = undefined as string | undefined;",DEMAND_CLI,'demand CLI: report shape'),
 ('src/cli/demand.ts',"return withVisibleText(report) as DemandReport;","return report as DemandReport;",DEMAND_CLI,'demand CLI: control characters'),
 ('src/cli/demand.ts',"maxBytes: MAX_REPORT_BYTES, maxRedirects: 0,","maxBytes: Infinity, maxRedirects: 0,",DEMAND_CLI,'demand CLI: byte cap'),
 ('src/cli/demand.ts',"maxRedirects: 0, allowLoopbackHttp","maxRedirects: 5, allowLoopbackHttp",DEMAND_CLI,'demand CLI: no redirect'),
 # the origin and host policy (issues 24 and 31)
 ('plugins/infrastructure/origin-policy.ts',"if (origin !== undefined && isMcpRequest(request) && !originAllowed(origin, allowedOrigins)) {","if (false) {",ORIGIN,'origin: foreign Origin refused'),
 ('plugins/infrastructure/origin-policy.ts',"} else if (checkHost && !hostAllowed(request.headers.host, allowedHosts)) {","} else if (false) {",ORIGIN,'origin: Host checked on loopback'),
 ('plugins/infrastructure/origin-policy.ts',"if (!/^https?:$/.test(url.protocol)) return false;","",ORIGIN,'origin: http or https only'),
 ('plugins/infrastructure/origin-policy.ts',"    /^127\\.\\d+\\.\\d+\\.\\d+$/.test(name) ||\n","",ORIGIN,'origin: any 127/8 spelling is loopback'),
 ('plugins/infrastructure/origin-policy.ts',"    name.endsWith('.localhost') ||\n","",ORIGIN,'origin: .localhost names are loopback'),
 ('plugins/support/public-url.ts',"const host = forwarded && !hostAllowed(request.host, allowedHosts) ? request.headers.host : request.host;","const host = request.host;",ORIGIN,'public URL: forwarded host checked'),
 ('plugins/support/public-url.ts',"const scheme = request.protocol === 'https' ? 'https' : 'http';","const scheme = request.protocol;",ORIGIN,'public URL: http or https'),
 ('plugins/support/public-url.ts',"if (publicUrl !== undefined) return publicUrl;","",ORIGIN,'public URL: PUBLIC_URL first'),
]
only = sys.argv[1:]
env=dict(os.environ)

def assertion_failed(tap_output):
    """True when some test point failed as an assertion: a `not ok` followed by its YAML diagnostic
    that is no caught exception, timeout or unfinished test. Subtest summaries carry no diagnostic."""
    lines=tap_output.split('\n')
    for i,line in enumerate(lines):
        m=re.match(r'^(\s*)not ok \d+ - (.*)$',line)
        if not m or i+1>=len(lines) or lines[i+1].strip()!='---': continue
        if re.search(r'timeout!|test unfinished',m.group(2)): continue
        diag=[]
        for d in lines[i+2:]:
            if d.strip()=='...': break
            diag.append(d)
        diag='\n'.join(diag)
        if re.search(r'tapCaught:|expired:',diag): continue
        return True
    return False

def run(tests):
    r=subprocess.run(['npx','tap','--disable-coverage','--reporter=tap',*tests],cwd=ROOT,env=env,capture_output=True,text=True,timeout=900)
    return r.stdout+r.stderr

def unbuildable(output):
    # .taprc's `before` compiles the mutant: a mutant the compiler refuses tests nothing.
    return 'the build failed' in output

for i,(f,old,new,tests,name) in enumerate(M):
    if only and str(i) not in only: continue
    path=os.path.join(ROOT,f); src=open(path).read()
    if src.count(old)!=1:
        print(f'PATTERN {i} ({name}) occurs {src.count(old)} times in {f}: update the list', flush=True); sys.exit(2)

# The tests must pass unmutated, or a failure would be blamed on every mutant.
groups=sorted({tuple(t) for i,(_,_,_,t,_) in enumerate(M) if not only or str(i) in only})
for tests in groups:
    if assertion_failed(run(list(tests))):
        print(f'the tests fail without any mutant: {" ".join(tests)}'); sys.exit(2)

def build():
    subprocess.run(['npm','run','build'],cwd=ROOT,env=env,capture_output=True)

killed=survived=0
names=[]
broken=[]
for i,(f,old,new,tests,name) in enumerate(M):
    if only and str(i) not in only: continue
    path=os.path.join(ROOT,f); src=open(path).read()
    built=any(t.startswith(BUILT) for t in tests)
    open(path,'w').write(src.replace(old,new))
    try:
        if built: build()
        output=run(tests)
        if unbuildable(output):
            print(f'UNBUILDABLE {i} {name}: the mutant does not compile; fix the mutant', flush=True); broken.append(name); continue
        ok=assertion_failed(output)
    finally:
        open(path,'w').write(src)
        if built: build()
    killed+=ok; survived+=not ok
    if not ok: names.append(name)
    print(f'{"killed  " if ok else "SURVIVED"} {i} {name}', flush=True)
print(f'{killed} killed, {survived} survived' + (f': {", ".join(names)}' if names else '') + (f'; {len(broken)} unbuildable: {", ".join(broken)}' if broken else ''))
sys.exit(2 if broken else 1 if survived else 0)
