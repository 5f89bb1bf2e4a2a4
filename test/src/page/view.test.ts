import t from 'tap';
import { prepareCatalog } from '../../../src/catalog.js';
import { Federation } from '../../../src/federation/federation.js';
import { MAX_QUERY_LENGTH } from '../../../src/mcp/tools/get-sources.js';
import { categoryPageView, categoryView, homeView, notFoundView, peerRows, provenanceView, safeHref, searchView } from '../../../src/page/view.js';
import { generateKey } from '../../../src/provenance/keys.js';
import { SHIPPED_REGISTRY, TEST_PUBLIC_KEY, build, callTool, openSession, serverSigning, testConfig } from '../../helpers/build.js';
import { endorsingRegistry, newKey, peerDocuments, peerRegistry, servePeer } from '../../helpers/peers.js';
import { signedTwice } from '../../helpers/signed.js';
import { waitFor } from '../../helpers/wait.js';
import { loadWordVectors } from '../../../src/semantic/word-vectors.js';

const threshold = testConfig().matchThreshold;
// As the server builds it: with the semantic stage (on by default).
const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), threshold, { meaning: loadWordVectors() });
const slugs = Object.keys(catalog.registry.categories);

type Answer = {
  result?: { content: { text: string }[]; isError?: boolean; structuredContent?: { category: { slug: string }; score: number } };
  error?: { code: number; message: string };
};

/** Topics, typos, nonsense and the edge cases a search box gets. */
const QUERIES = [
  'learn rust programming',
  'how do I run a bitcoin full node',
  'harden an ubuntu server',
  'self-hosted email with dkim',
  'best password manager',
  'build an MCP server',
  'lern rust programing',
  'bitcon ful node',
  'paswords managr',
  'xyzzy plugh quux',
  'qwertyuiopasdfgh',
  'medieval french poetry',
  '',
  '   ',
  ' \t\n ',
  'how do I the a of to and',
  'what is the',
  '<script>alert(1)</script>',
  'ⅷ'.repeat(400),
  'rust '.repeat(200),
  'x'.repeat(MAX_QUERY_LENGTH),
  'x'.repeat(MAX_QUERY_LENGTH + 1),
];

t.test('the search view says what get_sources says over MCP, for every kind of query', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const kinds = new Set<string>();
  for (const [i, query] of QUERIES.entries()) {
    const label = JSON.stringify(query.length > 40 ? `${query.slice(0, 40)}... (${query.length} chars)` : query);
    const view = searchView(catalog, query);
    const { json } = await callTool(app, session, 'get_sources', { query }, i + 1);
    const answer = json as Answer;
    kinds.add(view.kind);
    t.equal(view.query, query, `${label}: the view keeps the query as typed`);
    if (answer.error !== undefined) {
      t.equal(view.kind, 'invalid', `${label}: the tool refuses the arguments, the view says the query is invalid`);
      continue;
    }
    const result = answer.result!;
    if (result.isError === true) {
      t.equal(view.kind, 'no-match', `${label}: no match, as the tool says`);
      if (view.kind === 'no-match') t.equal(view.agentText, result.content[0]!.text, `${label}: the tool's own words, shown on request`);
    } else {
      t.equal(view.kind, 'match', `${label}: a match, as the tool says`);
      if (view.kind === 'match') {
        t.equal(view.category.slug, result.structuredContent!.category.slug, `${label}: the same category`);
        t.equal(view.score, result.structuredContent!.score.toFixed(3), `${label}: the same score`);
        t.same(view.category.sources.map((s) => s.rank), [1, 2, 3], `${label}: three sources in rank order`);
      }
    }
  }
  t.same([...kinds].sort(), ['invalid', 'match', 'no-match'], 'the list covers all three outcomes');
});

t.test('named outcomes: a topic finds its category, nonsense and empty queries do not, 1001 characters are refused', async (t) => {
  const rust = searchView(catalog, 'learn rust programming');
  t.equal(rust.kind === 'match' && rust.category.slug, 'rust-learning');
  const bitcoin = searchView(catalog, 'how do I run a bitcoin full node');
  t.equal(bitcoin.kind === 'match' && bitcoin.category.slug, 'bitcoin-node-setup');

  const nonsense = searchView(catalog, 'xyzzy plugh quux');
  t.equal(nonsense.kind, 'no-match');
  t.match(nonsense.kind === 'no-match' && nonsense.message, /^Nothing here matches “xyzzy plugh quux” well enough to show three sources for it\. Try the topic's main words, or browse the categories below\.$/);
  t.match(nonsense.kind === 'no-match' && nonsense.agentText, /^No category matches "xyzzy plugh quux" well enough: no category comes near it\./);

  for (const query of ['', '   ', 'how do I the a of to and']) {
    const empty = searchView(catalog, query);
    t.equal(empty.kind, 'no-match', JSON.stringify(query));
    t.match(empty.kind === 'no-match' && empty.message, query.trim() === '' ? /^Type a few words about a topic, for example “learn rust programming”\.$/ : /^“how do I the a of to and” has no words to search for\./, JSON.stringify(query));
    t.same(empty.kind === 'no-match' && empty.named, [], `${JSON.stringify(query)}: no closest category is invented`);
  }

  const long = searchView(catalog, 'a'.repeat(MAX_QUERY_LENGTH + 1));
  t.equal(long.kind, 'invalid');
  t.equal(long.kind === 'invalid' && long.message, 'The query is longer than 1000 characters. Ask about one topic in a sentence or two.');
  t.equal(searchView(catalog, 'a'.repeat(MAX_QUERY_LENGTH)).kind, 'no-match', 'exactly 1000 characters is still a query');
});

t.test('a no-match links exactly the candidate categories its message names (at most five), or none', async (t) => {
  const kinds = { named: 0, none: 0 };
  const extra = ['rust cooking recipes', 'bitcoin price prediction', 'email marketing campaign', 'smart home lighting ideas', 'security', 'keys', 'password email', 'secure my home server'];
  for (const query of [...QUERIES, ...extra]) {
    const view = searchView(catalog, query);
    if (view.kind !== 'no-match') continue;
    const label = JSON.stringify(query.slice(0, 40));
    const named = [...view.agentText.matchAll(/^\d\. .+ \(slug: ([a-z0-9-]+), score [\d.]+(?:, similarity in meaning [\d.]+)?\): /gm)].map((m) => m[1]);
    t.ok(named.length <= 5, `${label}: at most five candidates`);
    t.same(view.named.map((c) => c.slug), named, `${label}: the view links the candidates the message names, in its order`);
    if (named.length > 0) {
      kinds.named++;
      t.equal(view.named[0]?.path, `/c/${named[0]}`);
    } else kinds.none++;
  }
  t.ok(kinds.named > 0 && kinds.none > 0, `both kinds are seen (${JSON.stringify(kinds)})`);
  const vague = searchView(catalog, 'security');
  t.ok(vague.kind === 'no-match' && vague.named.length > 0, 'too vague: the categories that use the word are put forward to choose from');
});

t.test('safeHref links only http and https URLs', async (t) => {
  for (const url of ['https://doc.rust-lang.org/book/', 'http://127.0.0.1:3000/mcp', 'HTTPS://EXAMPLE.ORG/a?b=c#d']) {
    t.equal(safeHref(url), url, `kept: ${url}`);
  }
  for (const url of [
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'ftp://example.org/',
    '/c/rust-learning',
    '//evil.example/',
    '../relative',
    'example.org',
    'https//missing-colon',
    'http://',
    '',
    'not a url',
  ]) {
    t.equal(safeHref(url), undefined, `refused: ${JSON.stringify(url)}`);
  }
});

t.test('category views are the catalog: every category, its three sources in rank order, its own path', async (t) => {
  for (const slug of slugs) {
    const view = categoryView(catalog, slug)!;
    const category = catalog.registry.categories[slug]!;
    t.equal(view.name, category.name);
    t.equal(view.description, category.description);
    t.equal(view.path, `/c/${slug}`);
    t.same(view.tags, category.tags);
    t.same(view.notAbout, category.notAbout ?? []);
    t.same(view.sources.map((s) => [s.rank, s.name, s.url, s.href]), category.sources.map((s) => [s.rank, s.name, s.url, s.url]));
    t.match(view.lastChanged, /on or before \d{4}-\d{2}-\d{2} \(the registry's date; it has no signed history\)/);
    t.equal(categoryPageView(catalog, slug, 'http://127.0.0.1:3000')?.category.slug, slug);
  }
  for (const slug of ['unknown', 'constructor', '__proto__', 'toString', '']) {
    t.equal(categoryView(catalog, slug), undefined, `no category ${JSON.stringify(slug)}, inherited names included`);
    t.equal(categoryPageView(catalog, slug, 'http://127.0.0.1:3000'), undefined);
  }
  const home = homeView(catalog, { baseUrl: 'http://127.0.0.1:3000' });
  t.same(home.categories.map((c) => c.slug), slugs, "the home page lists every category, in the curator's order");
  t.equal(home.search, undefined, 'no search without a query');
  t.equal(home.title, 'Three Good Sources');
  t.equal(home.mcpUrl, 'http://127.0.0.1:3000/mcp');
  t.same(JSON.parse(home.clientConfig), { mcpServers: { 'three-good-sources': { type: 'http', url: 'http://127.0.0.1:3000/mcp' } } });
  t.match(home.curl, /^curl -s 'http:\/\/127\.0\.0\.1:3000\/mcp' \\\n/);
  t.equal(homeView(catalog, { baseUrl: 'http://localhost:8080', query: 'learn rust' }).search?.kind, 'match');
  t.equal(homeView(catalog, { baseUrl: 'http://localhost:8080', query: 'q'.repeat(100) }).title, `${'q'.repeat(60)} · Three Good Sources`, 'a long query is cut in the title');
  const notFound = notFoundView(catalog, `/c/${'z'.repeat(300)}`, 'http://127.0.0.1:3000');
  t.equal(notFound.path.length, 120, 'a long path is cut');
  t.match(notFound.path, /\.\.\.$/);
});

t.test('the provenance view says plainly who signed: this server with the curator key, or an ephemeral development key', async (t) => {
  const server = provenanceView(catalog, 'http://127.0.0.1:3000');
  t.equal(server.mode, 'server');
  t.equal(server.publicKey, TEST_PUBLIC_KEY);
  t.equal(server.sha256, catalog.signed.sha256);
  t.equal(server.version, catalog.registry.version);
  t.equal(server.curator, catalog.registry.curator.name);
  t.match(server.signedBy, /^this server, with the curator's secret key its operator configured/);
  t.match(server.history, /^No signed history/);
  t.equal(server.verifyCli.at(-1), `npx three-good-sources verify 'http://127.0.0.1:3000' --pubkey ${TEST_PUBLIC_KEY}`);
  t.ok(server.verifyCli.includes('npm install'), "get_provenance's install step comes with it");
  t.ok(server.verifyOpenssl.includes("BASE='http://127.0.0.1:3000'"), 'the openssl recipe names this address, quoted');
  t.match(server.expectedOutput, new RegExp(`sha256sum prints ${server.sha256}`), 'what the recipe prints when it succeeds');
  t.notOk(server.verifyOpenssl.some((line) => line.includes("this server's base URL")), 'no placeholder is left to replace');

  const ephemeralKey = generateKey(true).key;
  const ephemeral = provenanceView(await prepareCatalog(SHIPPED_REGISTRY, { mode: 'ephemeral', key: ephemeralKey }, threshold), 'http://localhost:1');
  t.equal(ephemeral.mode, 'ephemeral');
  t.equal(ephemeral.publicKey, ephemeralKey.publicKey);
  t.match(ephemeral.signedBy, /for development: no curator signed this registry, and the key and signatures change when the server restarts/);

  const folder = await signedTwice();
  const curator = provenanceView(await prepareCatalog(folder.registry, { mode: 'curator', publicKey: folder.pubkey, keySource: 'CURATOR_PUBKEY' }, threshold), 'http://localhost:1');
  t.equal(curator.mode, 'curator');
  t.match(curator.signedBy, /^the curator, offline/);
  t.match(curator.history, /^2 signed versions, the latest 1\.1\.0 on \d{4}-\d{2}-\d{2}/);
});

t.test('the peers view: none said plainly, an endorsed curator unverified until fetched, then verified with its version', async (t) => {
  t.same(peerRows(catalog, { peers: () => [] }), [], 'the shipped registry endorses no one');
  t.same(homeView(catalog, { baseUrl: 'http://127.0.0.1:3000' }).peers, []);

  const key = newKey();
  const url = await servePeer(t, peerDocuments(peerRegistry(key, { version: '2.1.0' }), key));
  const file = await endorsingRegistry([{ key: key.publicKey, url, name: 'Peer <Curator>' }]);
  const endorsing = await prepareCatalog(file, serverSigning(), threshold, { rules: { allowLoopbackHttp: true } });
  const federation = new Federation({ refreshMs: 60_000, cacheDir: undefined, allowLoopbackHttp: true, matchThreshold: threshold });
  federation.setPeers(endorsing.registry.endorsements);
  t.teardown(() => federation.stop());

  const before = peerRows(endorsing, federation);
  t.match(before, [{ name: 'Peer <Curator>', url, href: url, pubkey: key.publicKey, since: '2026-11-26', state: 'unavailable', detail: 'not verified yet or unreachable: nothing of it is served' }]);

  federation.start();
  await waitFor(() => federation.peers()[0]?.state === 'fresh');
  const after = peerRows(endorsing, federation);
  t.equal(after[0]?.state, 'fresh');
  t.match(after[0]?.detail, /^verified and current; registry 2\.1\.0, last verified \d{4}-\d{2}-\d{2}T/);
});

t.test('a peer URL that is not http(s) is shown, never linked', async (t) => {
  const peer = { pubkey: newKey().publicKey, url: 'javascript:alert(1)', name: 'Bad', since: '2026-01-01' };
  const forged = { ...catalog, registry: { ...catalog.registry, endorsements: [peer] } };
  const [row] = peerRows(forged, { peers: () => [] });
  t.equal(row?.url, 'javascript:alert(1)');
  t.equal(row?.href, undefined);
});
