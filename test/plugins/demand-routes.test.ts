import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { build, rpc } from '../helpers/build.js';

const TOKEN = 'curator-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

/** A 2026-07-28 get_sources call, as agents send it without a session, from `client`'s address. */
function ask(app: FastifyInstance, query: string, client: string) {
  return rpc(
    app,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_sources', arguments: { query }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'tap', version: '1' } } } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_sources' },
    { remoteAddress: client },
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
  t.match(page.body, /keeps nothing of what it is asked/);
});
