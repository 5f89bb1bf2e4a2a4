import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ROOT, SHIPPED_REGISTRY, build, callTool, openSession, rpc } from '../../helpers/build.js';
import { endorsingRegistry, newKey, peerDocuments, peerRegistry, servePeer } from '../../helpers/peers.js';

const run = promisify(execFile);

interface ShippedRegistry {
  version: string;
  categories: Record<string, { name: string; description: string; sources: { rank: number; name: string; url: string }[] }>;
}
const registry = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8')) as ShippedRegistry;
const slugs = Object.keys(registry.categories);

const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/** The directives as a list, however helmet spaces them. */
const directives = (header: unknown) => String(header).split(';').map((d) => d.trim()).filter((d) => d !== '');

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const unescapeHtml = (html: string) =>
  html.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

/** The <article> of one category on a page, from its opening tag to its end. */
function article (html: string, slug: string): string | undefined {
  const start = html.indexOf(`<article class="category" id="${slug}"`);
  if (start < 0) return undefined;
  return html.slice(start, html.indexOf('</article>', start) + '</article>'.length);
}

/** The source links of a block of HTML, in document order. */
const sourceLinks = (html: string) => [...html.matchAll(/<span class="rank">#(\d)<\/span> <a href="([^"]+)" rel="noopener noreferrer">([^<]*)<\/a>/g)].map((m) => ({ rank: Number(m[1]), href: unescapeHtml(m[2]!), name: unescapeHtml(m[3]!) }));

/** A GET sent as written, for request lines no client library would send. */
function rawGet (address: string, path: string): Promise<string> {
  const { hostname, port } = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (d) => (received += d));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
  });
}

/** The result section of a search, or undefined when the page has none. */
const resultSection = (html: string) => /<section class="result"[\s\S]*?<\/section>/.exec(html)?.[0];

t.test('GET /: every category of the registry, each with its three sources in rank order and a link to its page', async (t) => {
  const app = await build(t);
  const res = await app.inject({ method: 'GET', url: '/' });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  t.match(res.body, /^<!doctype html>\n<html lang="en">/);
  t.match(res.body, `<h2 id="categories-heading">Categories (${slugs.length})</h2>`);
  t.equal((res.body.match(/<article class="category"/g) ?? []).length, slugs.length, `${slugs.length} categories, no more`);
  t.equal(resultSection(res.body), undefined, 'no search result without a query');
  const order: number[] = [];
  for (const slug of slugs) {
    const category = registry.categories[slug]!;
    const block = article(res.body, slug);
    t.ok(block, `${slug} is listed`);
    order.push(res.body.indexOf(`id="${slug}"`));
    t.match(block, `<a href="/c/${slug}">${escapeHtml(category.name)}</a>`, `${slug}: its name links to /c/${slug}`);
    t.match(block, escapeHtml(category.description), `${slug}: its description`);
    const expected = [...category.sources].sort((a, b) => a.rank - b.rank).map((s) => ({ rank: s.rank, href: s.url, name: s.name }));
    t.same(sourceLinks(block!), expected, `${slug}: three sources, best first, each linked to its URL`);
  }
  t.same(order, [...order].sort((a, b) => a - b), "in the registry's order");
  t.match(res.body, `Registry ${registry.version} by`, 'the footer names the registry version');
});

t.test('GET /: the security headers, and never stored', async (t) => {
  const app = await build(t);
  for (const url of ['/', '/?q=learn+rust', '/?q=xyzzy', `/?q=${'a'.repeat(1001)}`, '/c/rust-learning', '/c/unknown']) {
    const res = await app.inject({ method: 'GET', url });
    t.same(directives(res.headers['content-security-policy']), directives(CSP), `${url.slice(0, 30)}: the CSP, exactly`);
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${url.slice(0, 30)}: nosniff`);
    t.equal(res.headers['referrer-policy'], 'no-referrer', `${url.slice(0, 30)}: no referrer`);
    t.equal(res.headers['cache-control'], 'no-store', `${url.slice(0, 30)}: not stored`);
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    t.notOk(res.headers['strict-transport-security'], 'HSTS is left to the TLS proxy');
  }
  const health = await app.inject({ method: 'GET', url: '/health' });
  t.notOk(health.headers['content-security-policy'], "the page's headers stay on the page's routes");
});

t.test('GET /: the MCP endpoint and the examples use the Host the request came in on', async (t) => {
  const app = await build(t);
  for (const host of ['localhost:4321', '127.0.0.1:3000', '[::1]:8080']) {
    const res = await app.inject({ method: 'GET', url: '/', headers: { host } });
    t.equal(res.statusCode, 200, host);
    t.match(res.body, `<code>http://${host}/mcp</code>`, `${host}: the MCP endpoint`);
    t.match(res.body, `&quot;url&quot;: &quot;http://${host}/mcp&quot;`, `${host}: the client configuration`);
    t.match(res.body, `curl -s &#39;http://${host}/mcp&#39;`, `${host}: the curl example`);
    t.match(res.body, `npx three-good-sources verify &#39;http://${host}&#39; --pubkey`, `${host}: the verification command`);
    t.match(res.body, `BASE=&#39;http://${host}&#39;\n`, `${host}: the openssl recipe`);
  }
});

t.test('GET /?q=: the answer get_sources gives, or its honest no-match, or 400 for a query over 1000 characters', async (t) => {
  const app = await build(t);
  const session = await openSession(app);

  const rust = await app.inject({ method: 'GET', url: '/?q=learn+rust' });
  t.equal(rust.statusCode, 200);
  const found = resultSection(rust.body);
  t.match(found, 'Sources for “learn rust”');
  t.match(found, '<strong>Rust Learning</strong>');
  t.ok(article(found!, 'result-rust-learning'), 'the result is the rust-learning category');
  t.match(found, '<h3 id="result-h-rust-learning"><a href="/c/rust-learning">Rust Learning</a></h3>', 'with a link to its page');
  t.equal(sourceLinks(found!).length, 3, 'with its three sources');
  t.match(rust.body, '<title>learn rust · Three Good Sources</title>');
  t.match(rust.body, 'value="learn rust"', 'the search box keeps the query');
  t.equal((rust.body.match(/<article class="category"/g) ?? []).length, slugs.length + 1, 'the list of every category follows');

  const nonsense = 'xyzzy plugh quux';
  const none = await app.inject({ method: 'GET', url: `/?q=${encodeURIComponent(nonsense)}` });
  t.equal(none.statusCode, 200);
  const { json } = await callTool(app, session, 'get_sources', { query: nonsense });
  t.equal(json.result?.isError, true);
  const message = json.result!.content[0]!.text;
  t.match(resultSection(none.body), `<p class="answer no-match" role="status">Nothing here matches “${nonsense}” well enough to show three sources for it.`, 'a sentence for people (issue 33, item 5)');
  t.match(resultSection(none.body), `<details class="agent-text"><summary>What an agent is told</summary><p>${escapeHtml(message)}</p></details>`, "the tool's own message, on request");
  t.notMatch((resultSection(none.body) ?? '').replace(/<details[\s\S]*<\/details>/, ''), /get_sources|slug|score/, 'no tool, slug or score in what people read first');
  t.notMatch(resultSection(none.body), '<article', 'no category is offered as the answer');

  const close = await app.inject({ method: 'GET', url: `/?q=${encodeURIComponent('rust cooking recipes')}` });
  const closest = /the closest is ([a-z0-9-]+) with score/.exec(unescapeHtml(close.body))?.[1];
  t.ok(closest, 'a near miss names its closest category');
  t.match(resultSection(close.body), `Perhaps you meant <a href="/c/${closest}">`, 'the closest category named is linked');
  const vague = await app.inject({ method: 'GET', url: '/?q=security' });
  t.match(resultSection(vague.body), '“security” is a single word that many topics touch. Add a few words about what you need, for example “');
  t.match(resultSection(vague.body), 'Perhaps you meant <a href="/c/', 'a query too vague puts forward the categories that use the word, linked');

  for (const blank of ['/?q=', '/?q=+++']) {
    const empty = await app.inject({ method: 'GET', url: blank });
    t.equal(empty.statusCode, 200);
    t.equal(resultSection(empty.body), undefined, `${blank}: an empty search is the front page, never "Sources for “”"`);
  }
  const stopWords = await app.inject({ method: 'GET', url: '/?q=the' });
  t.match(resultSection(stopWords.body), '“the” has no words to search for. Describe the topic in a few words', 'only common words: said plainly');

  const long = await app.inject({ method: 'GET', url: `/?q=${'a'.repeat(1001)}` });
  t.equal(long.statusCode, 400);
  t.equal(long.headers['content-type'], 'text/html; charset=utf-8');
  t.match(resultSection(long.body), '<p class="answer no-match" role="alert">The query is longer than 1000 characters. Ask about one topic in a sentence or two.</p>');
  t.equal((await app.inject({ method: 'GET', url: `/?q=${'a'.repeat(1000)}` })).statusCode, 200, '1000 characters are a query');

  const first = await app.inject({ method: 'GET', url: `/?q=learn+rust+programming&q=${encodeURIComponent(nonsense)}` });
  t.equal(first.statusCode, 200);
  t.ok(article(resultSection(first.body)!, 'result-rust-learning'), '?q=a&q=b answers a');
  const other = await app.inject({ method: 'GET', url: `/?q=${encodeURIComponent(nonsense)}&q=learn+rust+programming` });
  t.match(resultSection(other.body), 'No category matches &quot;xyzzy plugh quux&quot;', '?q=b&q=a answers b');
});

t.test('GET /c/<slug>: a page for each category; an unknown one is a 404 page that shows the path as text', async (t) => {
  const app = await build(t);
  for (const slug of slugs) {
    const category = registry.categories[slug]!;
    const res = await app.inject({ method: 'GET', url: `/c/${slug}` });
    t.equal(res.statusCode, 200, slug);
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    t.match(res.body, `<title>${escapeHtml(category.name)} · Three Good Sources</title>`);
    t.match(res.body, `<h1 id="category-heading">${escapeHtml(category.name)}</h1>`);
    t.same(sourceLinks(res.body), [...category.sources].sort((a, b) => a.rank - b.rank).map((s) => ({ rank: s.rank, href: s.url, name: s.name })), `${slug}: its three sources in rank order`);
    t.match(res.body, `this page's address is <code>/c/${slug}</code>`);
  }
  for (const url of ['/c/unknown', '/c/constructor', '/c/__proto__']) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 404, url);
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    t.match(res.body, '<h1>Not found</h1>');
    t.match(res.body, `Nothing is published at <code>${url}</code>`);
    t.match(res.body, '<a href="/">See every category</a>');
  }
  // What a browser sends as it is: an apostrophe and an ampersand.
  const quoted = await app.inject({ method: 'GET', url: "/c/it's&more" });
  t.equal(quoted.statusCode, 404);
  t.match(quoted.body, '<code>/c/it&#39;s&amp;more</code>', 'the path as text');
  // Markup in the request line, sent raw on a socket (inject and browsers would encode it).
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const hostile = '/c/"><img%20src=x%20onerror=alert(1)>\'';
  const raw = await rawGet(address, hostile);
  t.match(raw, /^HTTP\/1\.1 404 /);
  t.notMatch(raw, /<img/i, 'no img element');
  t.match(raw, `<code>${escapeHtml(hostile)}</code>`, 'the path as text');
  const query = await app.inject({ method: 'GET', url: '/c/unknown?x=<script>' });
  t.match(query.body, '<code>/c/unknown</code>', 'the query string is not shown');
  const slug404 = await app.inject({ method: 'GET', url: '/c/' });
  t.equal(slug404.statusCode, 404, '/c/ names nothing');
});

t.test('every id on every page is unique, the search result repeating a listed category included', async (t) => {
  const app = await build(t);
  for (const url of ['/', '/?q=learn+rust+programming', '/?q=xyzzy', `/?q=${'a'.repeat(1001)}`, '/c/rust-learning', '/c/unknown']) {
    const html = (await app.inject({ method: 'GET', url })).body;
    const ids = [...html.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]!);
    t.same(ids.filter((id, i) => ids.indexOf(id) !== i), [], `${url.slice(0, 30)}: no id twice`);
    const labelledBy = [...html.matchAll(/aria-labelledby="([^"]*)"/g)].map((m) => m[1]!);
    t.same(labelledBy.filter((id) => !ids.includes(id)), [], `${url.slice(0, 30)}: every aria-labelledby names an element`);
  }
});

t.test('HEAD / and HEAD /c/<slug> answer with the headers and no body', async (t) => {
  const app = await build(t);
  for (const url of ['/', '/c/rust-learning']) {
    const get = await app.inject({ method: 'GET', url });
    const head = await app.inject({ method: 'HEAD', url });
    t.equal(head.statusCode, 200, url);
    t.equal(head.body, '', `${url}: no body`);
    t.equal(head.headers['content-type'], 'text/html; charset=utf-8');
    t.equal(head.headers['content-length'], get.headers['content-length'], `${url}: the length of the page`);
    t.same(directives(head.headers['content-security-policy']), directives(CSP));
  }
});

t.test("the page's style sheet and icon, with their content types", async (t) => {
  const app = await build(t);
  const css = await app.inject({ method: 'GET', url: '/assets/page.css' });
  t.equal(css.statusCode, 200);
  t.equal(css.headers['content-type'], 'text/css; charset=utf-8');
  t.equal(css.headers['x-content-type-options'], 'nosniff');
  t.equal(css.body, await readFile(join(ROOT, 'views', 'page.css'), 'utf8'));
  const icon = await app.inject({ method: 'GET', url: '/favicon.svg' });
  t.equal(icon.statusCode, 200);
  t.equal(icon.headers['content-type'], 'image/svg+xml');
  t.equal(icon.headers['x-content-type-options'], 'nosniff');
  t.equal(icon.body, await readFile(join(ROOT, 'views', 'favicon.svg'), 'utf8'));
  t.match(icon.body, /^<svg|^<\?xml/);
  const home = (await app.inject({ method: 'GET', url: '/' })).body;
  t.match(home, '<link rel="stylesheet" href="/assets/page.css">', 'the page links the style sheet');
  t.match(home, '<link rel="icon" href="/favicon.svg" type="image/svg+xml">', 'and the icon');
  t.equal((await app.inject({ method: 'GET', url: '/assets/other.css' })).statusCode, 404, 'nothing else is served from /assets');
});

t.test('after the registry file changes and a reload, GET / shows the change at once', async (t) => {
  const file = join(await mkdtemp(join(tmpdir(), '3gs-page-')), 'registry.json');
  const data = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8')) as ShippedRegistry;
  await writeFile(file, JSON.stringify(data));
  const app = await build(t, { registryPath: file });
  const before = await app.inject({ method: 'GET', url: '/' });
  t.match(before.body, '>Rust Learning</a>');
  t.match(before.body, 'Registry 1.0.0 by');

  data.version = '1.0.1';
  data.categories['rust-learning']!.name = 'Rust, Learned Properly';
  delete data.categories['pubky-development'];
  await writeFile(file, JSON.stringify(data));
  const outcome = await app.reloadRegistry();
  t.equal(outcome.ok, true);
  const after = await app.inject({ method: 'GET', url: '/' });
  t.match(after.body, '>Rust, Learned Properly</a>', 'the new name');
  t.notMatch(after.body, '>Rust Learning</a>', 'not the old one');
  t.notOk(article(after.body, 'pubky-development'), 'a removed category is gone');
  t.match(after.body, `Categories (${slugs.length - 1})`);
  t.match(after.body, 'Registry 1.0.1 by');
  t.equal((await app.inject({ method: 'GET', url: '/c/pubky-development' })).statusCode, 404, 'its page too');
  t.match((await app.inject({ method: 'GET', url: '/?q=learn+rust+programming' })).body, '<strong>Rust, Learned Properly</strong>', 'and the search');
});

t.test('bound to loopback: a foreign Host is refused on the page as on /mcp; a foreign Origin only on /mcp', async (t) => {
  const app = await build(t, { host: '127.0.0.1' });
  const evil = { host: 'evil.example' };
  for (const url of ['/', '/?q=rust', '/c/rust-learning', '/assets/page.css', '/favicon.svg']) {
    t.equal((await app.inject({ method: 'GET', url, headers: evil })).statusCode, 403, `${url} with Host evil.example`);
  }
  t.equal((await rpc(app, { jsonrpc: '2.0', id: 1, method: 'ping' }, evil)).statusCode, 403, '/mcp with Host evil.example');

  const origin = { origin: 'https://evil.example' };
  const page = await app.inject({ method: 'GET', url: '/', headers: origin });
  t.equal(page.statusCode, 200, 'GET / with a foreign Origin is served');
  t.notOk(page.headers['access-control-allow-origin'], 'but CORS gives that origin no access to it');
  t.equal((await rpc(app, { jsonrpc: '2.0', id: 1, method: 'ping' }, origin)).statusCode, 403, '/mcp with the same Origin is refused');

  const open = await build(t, { host: '0.0.0.0' });
  const anyHost = await open.inject({ method: 'GET', url: '/', headers: { host: 'threegoodsources.example' } });
  t.equal(anyHost.statusCode, 200, 'bound to every address, any Host is served');
  t.match(anyHost.body, '<code>http://threegoodsources.example/mcp</code>');
});

t.test('the signing mode is said plainly: an ephemeral development key, or this server with the curator key', async (t) => {
  const server = (await (await build(t)).inject({ method: 'GET', url: '/' })).body;
  t.match(server, '<dd class="signed-server">this server, with the curator&#39;s secret key its operator configured (server-side signing)</dd>');
  const ephemeral = (await (await build(t, { curatorSeed: undefined })).inject({ method: 'GET', url: '/' })).body;
  t.match(ephemeral, /<dd class="signed-ephemeral">a key this server made at start-up, for development: no curator signed this registry/);
});

t.test('the endorsed curators panel: none said plainly, a verified peer with its state and version', async (t) => {
  const none = (await (await build(t)).inject({ method: 'GET', url: '/' })).body;
  t.match(none, 'Curators this one endorses (0)');
  t.match(none, 'None: this registry endorses no other curator.');

  const key = newKey();
  const url = await servePeer(t, peerDocuments(peerRegistry(key, { version: '3.2.1' }), key));
  const registryPath = await endorsingRegistry([{ key: key.publicKey, url, name: 'Peer Curator' }]);
  const app = await build(t, { registryPath, federationAllowLoopbackHttp: true });
  const unverified = (await app.inject({ method: 'GET', url: '/' })).body;
  t.match(unverified, 'Curators this one endorses (1)');
  t.match(unverified, /<strong>Peer Curator<\/strong>, endorsed since 2026-11-26: <span class="state state-unavailable">unavailable<\/span> \(not verified yet or unreachable: nothing of it is served\)/);
  t.match(unverified, `<a href="${url}" rel="noopener noreferrer">${url}</a>`);
  await app.listen({ host: '127.0.0.1', port: 0 });
  let page = '';
  for (let i = 0; i < 100 && !page.includes('state-fresh'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    page = (await app.inject({ method: 'GET', url: '/' })).body;
  }
  t.match(page, /<span class="state state-fresh">fresh<\/span> \(verified and current; registry 3\.2\.1, last verified \d{4}-/);
});

t.test("the page's curl example, run as shown against a listening server, gets get_sources' answer", async (t) => {
  const app = await build(t);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const html = await (await fetch(`${address}/`)).text();
  const code = /<pre tabindex="0" class="curl"><code>([\s\S]*?)<\/code><\/pre>/.exec(html)?.[1];
  t.ok(code, 'the page shows a curl example');
  const command = unescapeHtml(code!);
  t.match(command, new RegExp(`^curl -s '${address}/mcp'`), 'for the address the page was read at');
  const { stdout } = await run('bash', ['-c', command], { env: { PATH: process.env.PATH ?? '' } });
  // The answer comes as JSON or, for a client that takes both, as one server-sent event.
  const body = stdout.startsWith('{') ? stdout : stdout.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('');
  const answer = JSON.parse(body) as { id: number; result: { content: { text: string }[]; structuredContent: { category: { slug: string } } } };

  const session = await openSession(app);
  const { json } = await callTool(app, session, 'get_sources', { query: 'learn rust programming' });
  t.equal(answer.id, 1);
  t.equal(answer.result.structuredContent.category.slug, 'rust-learning');
  t.equal(answer.result.content[0]!.text, json.result!.content[0]!.text, 'the same answer an agent in a session gets');
});

t.test('a Host header that is no host name is never repeated into the commands a reader copies', async (t) => {
  const app = await build(t, { host: '0.0.0.0' });
  for (const host of ['x$(id);`id`', "a'b", 'a$&b', 'evil.example/../x']) {
    const res = await app.inject({ method: 'GET', url: '/', headers: { host } });
    t.equal(res.statusCode, 200, JSON.stringify(host));
    const text = unescapeHtml(res.body);
    t.notOk(text.includes(host), `${JSON.stringify(host)} appears nowhere`);
    t.match(text, "npx three-good-sources verify <this server's base URL> --pubkey", 'the placeholder instead, for the reader to replace');
  }
  const fine = await app.inject({ method: 'GET', url: '/', headers: { host: 'sources.example.org:8443' } });
  t.match(unescapeHtml(fine.body), "BASE='http://sources.example.org:8443'\n", 'a real host name is used, quoted');
});

t.test('page addresses under /c/ answer as pages: a trailing slash leads to the category, anything else is the HTML not-found page', async (t) => {
  const app = await build(t);
  const slash = await app.inject({ method: 'GET', url: '/c/rust-learning/' });
  t.equal(slash.statusCode, 308);
  t.equal(slash.headers.location, '/c/rust-learning');
  for (const url of ['/c/no-such/', '/c/rust-learning/extra', '/c/a/b/c']) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 404, url);
    t.match(res.headers['content-type'], /^text\/html/, `${url}: a page`);
    t.match(res.body, '<h1>Not found</h1>');
  }
});

t.test('the page search is rate limited per client as /mcp is', async (t) => {
  const app = await build(t, { rateLimitMax: 3, rateLimitWindowMs: 60_000 });
  const codes: number[] = [];
  for (let i = 0; i < 4; i++) codes.push((await app.inject({ method: 'GET', url: `/?q=learn+rust+${i}` })).statusCode);
  t.same(codes, [200, 200, 200, 429]);
});
