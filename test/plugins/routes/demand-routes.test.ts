import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { build, rpc } from '../../helpers/build.js';

const TOKEN = 'curator-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

/** A 2026-07-28 get_sources call, as agents send it without a session, from `client`'s address. */
function ask (app: FastifyInstance, query: string, client: string) {
  return rpc(
    app,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_sources', arguments: { query }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'tap', version: '1' } } } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_sources' },
    { remoteAddress: client }
  );
}

const clients = (n: number, net = 10) => Array.from({ length: n }, (_, i) => `10.${net}.${i >> 8}.${i & 255}`);

t.test('GET /demand does not exist without DEMAND_TOKEN', async (t) => {
  const app = await build(t);
  const res = await app.inject({ method: 'GET', url: '/demand', headers: auth });
  t.equal(res.statusCode, 404);
});

t.test('a missing or wrong token gets 401 with no hint of what is recorded', async (t) => {
  const app = await build(t, { demandToken: TOKEN });
  for (const c of clients(6)) await ask(app, 'sourdough bread starter', c);
  const answers = [];
  for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }, { authorization: `Bearer ${TOKEN}x` }]) {
    const res = await app.inject({ method: 'GET', url: '/demand', headers });
    t.equal(res.statusCode, 401, JSON.stringify(headers));
    t.equal(res.headers['www-authenticate'], 'Bearer');
    answers.push(res.body);
  }
  t.same(new Set(answers), new Set([JSON.stringify({ statusCode: 401, error: 'Unauthorized', message: 'Unauthorized' })]), 'the same body every time, naming nothing');
  t.notMatch(answers.join(''), /sourdough|demand|record/i);
});

t.test('an empty window is reported plainly', async (t) => {
  const app = await build(t, { demandToken: TOKEN });
  const res = await app.inject({ method: 'GET', url: '/demand', headers: auth });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['cache-control'], 'no-store');
  const report = res.json();
  t.equal(report.totals.requests, 0);
  t.same(report.uncovered, []);
  t.same(report.nearMisses, []);
  t.same(report.scopeRefusals, []);
  t.equal(report.window.days, 30);
  t.equal(report.minClients, 5);
  t.equal(report.recording, true);
  t.equal(report.store, 'memory');
});

t.test('k-anonymity: a topic asked by k-1 clients appears nowhere; by k clients it is reported', async (t) => {
  const app = await build(t, { demandToken: TOKEN });
  for (const c of clients(3)) await ask(app, 'sourdough bread starter', c);
  // One client asking a hundred times is one client: four in all, k - 1.
  for (let i = 0; i < 100; i++) await ask(app, 'sourdough bread starter', '10.99.0.1');
  let report = (await app.inject({ method: 'GET', url: '/demand', headers: auth })).json();
  t.equal(report.totals.requests, 103, 'every request counted in the totals');
  t.equal(report.totals.byOutcome['below-threshold'], 103);
  t.notMatch(JSON.stringify(report), /sourdough|bread|starter/, 'four distinct clients (k - 1): none of the words, phrases or the query shown');
  for (const c of clients(12, 20)) await ask(app, 'sourdough bread starter', c);
  report = (await app.inject({ method: 'GET', url: '/demand', headers: auth })).json();
  t.equal(report.uncovered[0].text.includes('sourdough') || report.uncovered[0].related.some((r: { text: string }) => r.text.includes('sourdough')), true, 'asked by many clients: the top uncovered topic');
});

t.test('DEMAND_SIGNAL=off records nothing and says so', async (t) => {
  const app = await build(t, { demandToken: TOKEN, demandSignal: false });
  for (const c of clients(10)) await ask(app, 'sourdough bread starter', c);
  const report = (await app.inject({ method: 'GET', url: '/demand', headers: auth })).json();
  t.equal(report.recording, false);
  t.equal(report.totals.requests, 0);
  const page = await app.inject({ method: 'GET', url: '/' });
  t.match(page.body, /demand signal is off: it counts nothing of what is asked/);
});

t.test('page searches and get_federated_sources are counted as get_sources calls are', async (t) => {
  const app = await build(t, { demandToken: TOKEN });
  for (const c of clients(12, 30)) await app.inject({ method: 'GET', url: '/?q=sourdough+bread+starter', remoteAddress: c });
  for (const c of clients(12, 31)) {
    await rpc(
      app,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_federated_sources', arguments: { query: 'kombucha scoby care' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'tap', version: '1' } } } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_federated_sources' },
      { remoteAddress: c }
    );
  }
  await app.inject({ method: 'GET', url: '/?q=learn+rust+programming', remoteAddress: '10.32.0.1' });
  // The front page itself is no search: not counted.
  await app.inject({ method: 'GET', url: '/', remoteAddress: '10.32.0.2' });
  const report = (await app.inject({ method: 'GET', url: '/demand', headers: auth })).json();
  t.equal(report.totals.requests, 25);
  t.equal(report.totals.answeredByCategory['rust-learning'], 1);
  const topics = JSON.stringify(report.uncovered);
  t.match(topics, /sourdough/, 'the page searches');
  t.match(topics, /kombucha/, 'the federated calls');
});

t.test("a page search another site's page made a browser send is not counted; the reader's own is (issue 31, finding 3)", async (t) => {
  const app = await build(t, { demandToken: TOKEN });
  const search = (c: string, headers: Record<string, string>) => app.inject({ method: 'GET', url: '/?q=sourdough+bread+starter', remoteAddress: c, headers });
  // What Chromium sends for <img src> and a link or redirect from another site.
  for (const c of clients(12, 40)) await search(c, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' });
  for (const c of clients(12, 41)) await search(c, { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' });
  let report = (await app.inject({ method: 'GET', url: '/demand', headers: auth })).json();
  t.equal(report.totals.requests, 0, 'searches made by other sites count nowhere');
  t.same(report.uncovered, [], 'and put nothing on the list');
  await search('10.42.0.1', { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-user': '?1' });
  await search('10.42.0.2', { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' });
  await search('10.42.0.3', {});
  report = (await app.inject({ method: 'GET', url: '/demand', headers: auth })).json();
  t.equal(report.totals.requests, 3, "the page's own form, an address typed in, and a client that is no browser are counted");
});

t.test('an IPv6 home network is one client for k: its /56 by default, the prefix the operator sets otherwise (issue 31, finding 7)', async (t) => {
  // Twelve /64 networks of one /56, as one home is commonly given.
  const home = Array.from({ length: 12 }, (_, i) => `2001:db8:77:${(0x40 + i).toString(16)}::1`);
  const shown = async (config: Parameters<typeof build>[1]) => {
    const app = await build(t, { demandToken: TOKEN, ...config });
    for (const c of home) await ask(app, 'sourdough bread starter', c);
    return /sourdough/.test(JSON.stringify((await app.inject({ method: 'GET', url: '/demand', headers: auth })).json().uncovered));
  };
  t.equal(await shown({}), false, 'one /56 is one client: nothing shown');
  t.equal(await shown({ demandIpv6Prefix: 64 }), true, 'with DEMAND_IPV6_PREFIX=64 the twelve /64s are twelve clients');
});

t.test('the page: one sentence on what is kept, and with DEMAND_PUBLIC the topics nobody covers', async (t) => {
  const quiet = await build(t);
  const plain = (await quiet.inject({ method: 'GET', url: '/' })).body;
  t.match(plain, /This server(?:'|&#39;)s demand signal counts what is asked, never who: .* once 5 different clients have asked the same thing on one day, and deleted after 30 days; it keeps no addresses, session ids or queries as typed\./);
  t.notMatch(plain, /Asked for, covered by nobody here/, 'no public list unless asked for');
  const open = await build(t, { demandPublic: true, demandMinClients: 3, demandWindowDays: 7 });
  t.match((await open.inject({ method: 'GET', url: '/' })).body, /No uncovered topic has been asked by enough different clients yet\./, 'an empty list says so');
  const fresh = await build(t, { demandPublic: true, demandMinClients: 3, demandWindowDays: 7 });
  for (const c of clients(8, 40)) await fresh.inject({ method: 'GET', url: '/?q=sourdough+bread+starter', remoteAddress: c });
  const page = (await fresh.inject({ method: 'GET', url: '/' })).body;
  t.match(page, /once 3 different clients .* deleted after 7 days/, 'the sentence follows the settings');
  t.match(page, /<ul class="wanted">\s*<li>sourdough bread starter<\/li>/, 'the most requested topic, named by its words');
});

t.test('a call with its own threshold is not counted: threshold 1 would make every topic look uncovered', async (t) => {
  const app = await build(t, { demandToken: TOKEN });
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'tap', version: '1' } };
  for (const name of ['get_sources', 'get_federated_sources']) {
    for (const c of clients(8, 50)) {
      await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { query: 'learn rust programming', threshold: 1 }, _meta: meta } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name }, { remoteAddress: c });
    }
  }
  await ask(app, 'learn rust programming', '10.51.0.1');
  const report = (await app.inject({ method: 'GET', url: '/demand', headers: auth })).json();
  t.equal(report.totals.requests, 1, 'only the call at the server threshold');
  t.equal(report.totals.byOutcome.answered, 1);
});

t.test('guesses at the token meet the rate limit', async (t) => {
  const app = await build(t, { demandToken: TOKEN, rateLimitMax: 3 });
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push((await app.inject({ method: 'GET', url: '/demand', headers: { authorization: `Bearer guess-${i}-0123456789abcdef` } })).statusCode);
  t.same(statuses, [401, 401, 401, 429, 429]);
});
