import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { build, rpc } from '../../helpers/build.js';

const TOKEN = 'curator-token-0123456789';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'tap', version: '1' } };

function ask (app: FastifyInstance, query: string, client: string) {
  return rpc(
    app,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_sources', arguments: { query }, _meta: META } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_sources' },
    { remoteAddress: client }
  );
}

/** A fixed pseudo-random sequence, so that the population is the same on every run. */
function random (seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

// The simulated population (labelled): what agents ask, and what the report must say of it.
const ANSWERED = ['learn rust programming', 'how do I run a bitcoin full node', 'harden ssh on my ubuntu server', 'choose a password manager', 'set up dkim for my mail server', 'build an mcp server in typescript'];
const UNCOVERED = ['how do I keep a sourdough starter alive', 'sourdough starter smells like acetone', 'best flour for sourdough bread', 'sourdough starter feeding schedule'];
const NEAR_PASSWORD = ['password for my wifi router at the cafe', 'share the wifi password with guests', 'reset the router admin password'];

async function replay (app: FastifyInstance, population: number, seed: number) {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  for (let i = 0; i < population; i++) {
    const client = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    // Every client asks a few answered questions; about half ask about sourdough, a third hit the
    // password category's edge; each also asks one thing nobody else asks (the long tail).
    for (let j = 0; j < 3; j++) await ask(app, pick(ANSWERED), client);
    if (next() < 0.5) await ask(app, pick(UNCOVERED), client);
    if (next() < 0.3) await ask(app, pick(NEAR_PASSWORD), client);
    await ask(app, `unusual${i}topic about rarething${i} questions`, client);
  }
}

t.test('replay: a population of 200 clients gives a report that names the uncovered topic first and the words a category lacks; the long tail stays hidden', async (t) => {
  const app = await build(t, { demandToken: TOKEN });
  await replay(app, 200, 7);
  const report = (await app.inject({ method: 'GET', url: '/demand', headers: { authorization: `Bearer ${TOKEN}` } })).json();
  t.match(report.uncovered[0].text, /sourdough|starter/, `first uncovered topic: "${report.uncovered[0].text}"`);
  const password = report.nearMisses.find((n: { slug: string }) => n.slug === 'password-management');
  t.ok(password !== undefined, 'near-misses of password-management reported');
  const words = password.unknownWords.map((w: { text: string }) => w.text);
  t.ok(words.includes('wifi') && words.includes('router'), `the words it does not know: ${words.join(', ')}`);
  t.notMatch(JSON.stringify(report), /unusual\d|rarething/, 'what one client asked appears nowhere');
  t.ok(report.totals.answeredByCategory['rust-learning'] > 0, 'answers counted per category');
  t.equal(report.totals.requests, report.totals.byOutcome.answered + report.totals.byOutcome['below-threshold'] + report.totals.byOutcome['too-close'] + report.totals.byOutcome['out-of-scope'] + report.totals.byOutcome['too-vague'], 'every request has one outcome');
});

t.test('replay under k: the same traffic from four clients shows no topic at all', async (t) => {
  const app = await build(t, { demandToken: TOKEN });
  await replay(app, 4, 7);
  const report = (await app.inject({ method: 'GET', url: '/demand', headers: { authorization: `Bearer ${TOKEN}` } })).json();
  t.ok(report.totals.requests > 12, 'the totals count every request');
  t.same([report.uncovered, report.nearMisses.flatMap((n: { unknownWords: unknown[]; queries: unknown[] }) => [...n.unknownWords, ...n.queries]), report.scopeRefusals], [[], [], []], 'no word, phrase, query or entry');
});
