import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import t from 'tap';
import { buildApp } from '../../../src/app.js';
import { prepareCatalog } from '../../../src/catalog.js';
import { answersFor, getSources } from '../../../src/mcp/tools/get-sources.js';
import { INIT_PARAMS, MCP_HEADERS, SHIPPED_REGISTRY, TEST_PUBLIC_KEY, build, callTool, openSession, rpc, otherPublicKey, testConfig, serverSigning } from '../../helpers/build.js';

const init = (id: unknown = 1, params: unknown = INIT_PARAMS) => ({ jsonrpc: '2.0', id, method: 'initialize', params });

t.test('initialize negotiates the version and mints a session', async (t) => {
  const app = await build(t);
  const cases: [string, string][] = [
    ['2025-11-25', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['2024-11-05', '2025-11-25'],
    ['2099-01-01', '2025-11-25'],
    ['not a version', '2025-11-25'],
  ];
  const ids = new Set<string>();
  for (const [asked, answered] of cases) {
    const res = await rpc(app, init(1, { ...INIT_PARAMS, protocolVersion: asked }));
    t.equal(res.statusCode, 200, asked);
    t.match(res.headers['content-type'], /^application\/json/);
    const body = res.json();
    t.equal(body.jsonrpc, '2.0');
    t.equal(body.id, 1);
    t.equal(body.result.protocolVersion, answered, `${asked} is answered with ${answered}`);
    t.same(body.result.capabilities, { tools: {} });
    t.equal(body.result.serverInfo.name, 'three-good-sources');
    t.type(body.result.instructions, 'string');
    const session = res.headers['mcp-session-id'];
    t.match(session, /^[\x21-\x7e]+$/, 'session id is visible ASCII');
    ids.add(String(session));
  }
  t.equal(ids.size, cases.length, 'every initialize gets its own session');
});

t.test('serverInfo carries only the fields of the negotiated version', async (t) => {
  const app = await build(t);
  const info = async (v: string) => (await rpc(app, init(1, { ...INIT_PARAMS, protocolVersion: v }))).json().result.serverInfo;
  t.notOk('title' in (await info('2025-03-26')), 'no title for 2025-03-26');
  t.equal((await info('2025-06-18')).title, 'Three Good Sources');
  t.notOk('description' in (await info('2025-06-18')), 'no description before 2025-11-25');
  t.type((await info('2025-11-25')).description, 'string');
});

t.test('initialize without protocolVersion, capabilities or clientInfo gets -32602', async (t) => {
  const app = await build(t);
  for (const missing of ['protocolVersion', 'capabilities', 'clientInfo']) {
    const params: Record<string, unknown> = { ...INIT_PARAMS };
    delete params[missing];
    const res = await rpc(app, init(3, params));
    t.equal(res.json().error?.code, -32602, `without ${missing}`);
    t.equal(res.json().id, 3);
    t.equal(res.headers['mcp-session-id'], undefined, 'no session minted');
  }
  const none = await rpc(app, { jsonrpc: '2.0', id: 4, method: 'initialize' });
  t.equal(none.json().error?.code, -32602, 'without params at all');
});

t.test('the init gate is per session', async (t) => {
  const app = await build(t);
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

  const before = await rpc(app, list);
  t.equal(before.statusCode, 400, 'no session header: 400');
  t.same(before.json(), { jsonrpc: '2.0', id: 2, error: { code: -32002, message: 'Server not initialized: call initialize first' } });

  const a = await openSession(app);
  const other = await rpc(app, list);
  t.equal(other.statusCode, 400, "another client's initialize does not open the gate");
  t.equal(other.json().error.code, -32002);

  const withA = await rpc(app, list, { 'mcp-session-id': a });
  t.equal(withA.statusCode, 200, 'the initialized session passes');
  t.equal(withA.json().result.tools.length, 6);

  const unknown = await rpc(app, list, { 'mcp-session-id': 'no-such-session' });
  t.equal(unknown.statusCode, 404, 'unknown session: 404');
  t.equal(unknown.json().error.code, -32001);
  t.equal(unknown.json().id, 2);

  const again = await rpc(app, init(9), { 'mcp-session-id': a });
  t.equal(again.statusCode, 400, 'second initialize on a session: 400');
  t.equal(again.json().error.code, -32600);
  t.equal(again.json().id, 9);

  const garbage = await rpc(app, list, { 'mcp-session-id': 'x'.repeat(500) });
  t.equal(garbage.statusCode, 404, 'an id that cannot be ours is simply unknown');
});

t.test('a session that idles past its TTL is gone: 404', async (t) => {
  const app = await build(t, { sessionTtlMs: 50 });
  const session = await openSession(app);
  await new Promise((resolve) => setTimeout(resolve, 120));
  const res = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': session });
  t.equal(res.statusCode, 404);
  t.equal(res.json().error.code, -32001);
});

t.test('DELETE ends a session; later use gets 404', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  // Some clients send DELETE with Content-Type: application/json and no body.
  const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session, 'content-type': 'application/json' } });
  t.equal(del.statusCode, 200);
  const after = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': session });
  t.equal(after.statusCode, 404);
  const twice = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session } });
  t.equal(twice.statusCode, 404, 'a deleted session cannot be deleted again');
  t.notOk('id' in twice.json(), 'no id on an error with no request');
  const bare = await app.inject({ method: 'DELETE', url: '/mcp' });
  t.equal(bare.statusCode, 400, 'DELETE without a session header');
});

t.test('ping answers {} in any state', async (t) => {
  const app = await build(t);
  const ping = { jsonrpc: '2.0', id: 'p', method: 'ping' };
  const bare = await rpc(app, ping);
  t.same(bare.json(), { jsonrpc: '2.0', id: 'p', result: {} }, 'before initialize');
  const session = await openSession(app);
  t.same((await rpc(app, ping, { 'mcp-session-id': session })).json(), { jsonrpc: '2.0', id: 'p', result: {} }, 'in a session');
});

t.test('notifications get 202 with an empty body', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  for (const method of ['notifications/initialized', 'notifications/cancelled', 'notifications/whatever']) {
    const res = await rpc(app, { jsonrpc: '2.0', method, params: {} }, { 'mcp-session-id': session });
    t.equal(res.statusCode, 202, method);
    t.equal(res.body, '', `${method}: empty body`);
  }
  const stale = await rpc(app, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': 'gone' });
  t.equal(stale.statusCode, 404, 'a notification on an unknown session is not accepted');
  t.notOk('id' in stale.json());
});

t.test('envelope errors', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const h = { 'mcp-session-id': session };

  const batch = await rpc(app, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], h);
  t.equal(batch.statusCode, 400, 'batch: 400');
  t.equal(batch.json().error.code, -32600);
  t.match(batch.json().error.message, /Batch requests are not supported/);
  t.notOk('id' in batch.json(), 'no id on a batch rejection');

  const bad = await rpc(app, '{"jsonrpc": "2.0", "id": 1,', h);
  t.equal(bad.statusCode, 400, 'invalid JSON: 400');
  t.same(bad.json(), { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not valid JSON' } }, 'no id, never null');

  const empty = await rpc(app, '', h);
  t.equal(empty.statusCode, 400, 'empty body: 400');
  t.equal(empty.json().error.code, -32700);

  const notRpc: [string, unknown, unknown][] = [
    ['no method', { jsonrpc: '2.0', id: 5 }, 5],
    ['wrong jsonrpc', { jsonrpc: '1.0', id: 'a', method: 'tools/list' }, 'a'],
    ['no jsonrpc', { id: 6, method: 'tools/list' }, 6],
    ['null id', { jsonrpc: '2.0', id: null, method: 'tools/list' }, undefined],
    ['object id', { jsonrpc: '2.0', id: { x: 1 }, method: 'tools/list' }, undefined],
    ['boolean id', { jsonrpc: '2.0', id: true, method: 'tools/list' }, undefined],
    ['params not an object', { jsonrpc: '2.0', id: 7, method: 'tools/list', params: [1] }, 7],
    ['a number', 42, undefined],
    ['a string', '"hello"', undefined],
    ['null', 'null', undefined],
    ['a response', { jsonrpc: '2.0', id: 8, result: {} }, 8],
  ];
  for (const [what, body, id] of notRpc) {
    const res = await rpc(app, typeof body === 'string' ? body : JSON.stringify(body), h);
    t.equal(res.statusCode, 400, `${what}: 400`);
    t.equal(res.json().error.code, -32600, `${what}: -32600`);
    t.equal(res.json().jsonrpc, '2.0');
    if (id === undefined) t.notOk('id' in res.json(), `${what}: id left out`);
    else t.equal(res.json().id, id, `${what}: id echoed`);
  }
});

t.test('ids keep their type: no coercion', async (t) => {
  const app = await build(t);
  t.equal((await rpc(app, { jsonrpc: '2.0', id: 1, method: 'ping' })).json().id, 1);
  t.equal((await rpc(app, { jsonrpc: '2.0', id: '1', method: 'ping' })).json().id, '1');
  t.equal((await rpc(app, { jsonrpc: '2.0', id: 0, method: 'ping' })).json().id, 0);
});

t.test('unknown method: 200 with -32601', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const res = await rpc(app, { jsonrpc: '2.0', id: 3, method: 'resources/list' }, { 'mcp-session-id': session });
  t.equal(res.statusCode, 200);
  t.equal(res.json().error.code, -32601);
  t.equal(res.json().id, 3);
});

t.test('HTTP-level problems (size, content type, method) get JSON-RPC errors with their own status', async (t) => {
  const app = await build(t);
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } });
  const tooBig = await rpc(app, big);
  t.equal(tooBig.statusCode, 413, 'over 1 MiB: 413');
  t.equal(tooBig.json().error.code, -32600);

  const text = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'text/plain' }, payload: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
  t.equal(text.statusCode, 415, 'text/plain: 415');
  t.equal(text.json().error.code, -32600);

  const form = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1' });
  t.equal(form.statusCode, 415, 'a form: 415');

  const proto = await rpc(app, '{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"x":1}}');
  t.equal(proto.statusCode, 400, 'prototype poisoning is refused');

  for (const method of ['GET', 'PUT', 'PATCH'] as const) {
    const res = await app.inject({ method, url: '/mcp' });
    t.equal(res.statusCode, 405, `${method}: 405`);
    t.equal(res.headers.allow, 'POST, DELETE');
  }
});

t.test('an unsupported MCP-Protocol-Version header gets 400; the negotiated version wins', async (t) => {
  const app = await build(t);
  const session = await openSession(app, '2025-03-26');
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const bad = await rpc(app, list, { 'mcp-session-id': session, 'mcp-protocol-version': '1999-01-01' });
  t.equal(bad.statusCode, 400);
  t.match(bad.json().error.message, /Unsupported MCP-Protocol-Version/);
  const other = await rpc(app, list, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
  t.equal(other.statusCode, 200);
  t.notOk('title' in other.json().result.tools[0], 'the session negotiated 2025-03-26: no title');
});

t.test('Origin: localhost and configured origins pass, others get 403 with no id', async (t) => {
  const app = await build(t, { allowedOrigins: ['https://agent.example.com'] });
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const evil = await rpc(app, ping, { origin: 'https://evil.example.net' });
  t.equal(evil.statusCode, 403);
  t.same(evil.json(), { jsonrpc: '2.0', error: { code: -32600, message: 'Forbidden: this Origin is not allowed' } });
  t.equal((await rpc(app, ping, { origin: 'null' })).statusCode, 403, 'the opaque origin "null" is refused');
  for (const origin of ['http://localhost:5173', 'http://127.0.0.1', 'https://agent.example.com']) {
    const ok = await rpc(app, ping, { origin });
    t.equal(ok.statusCode, 200, origin);
    t.equal(ok.headers['access-control-allow-origin'], origin);
    t.match(String(ok.headers['access-control-expose-headers']), /Mcp-Session-Id/);
  }
  t.equal((await rpc(app, ping)).statusCode, 200, 'no Origin (not a browser): allowed');

  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/mcp',
    headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'mcp-session-id, mcp-protocol-version' },
  });
  t.equal(preflight.statusCode, 204);
  t.match(String(preflight.headers['access-control-allow-headers']), /Mcp-Session-Id/);
  t.match(String(preflight.headers['access-control-allow-headers']), /MCP-Protocol-Version/);
});

t.test('tools/list: six tools with descriptions and input schemas', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const { tools } = (await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': session })).json().result;
  t.same(tools.map((x: { name: string }) => x.name), ['get_sources', 'get_federated_sources', 'list_categories', 'get_provenance', 'get_endorsements', 'get_history']);
  for (const tool of tools) {
    t.ok(tool.description.length > 80, `${tool.name}: a description an agent can use`);
    t.equal(tool.inputSchema.type, 'object');
    t.equal(tool.inputSchema.additionalProperties, false, `${tool.name}: no unknown keys`);
    t.equal(tool.annotations.readOnlyHint, true);
  }
  t.same(tools[0].inputSchema.required, ['query']);
  t.equal(tools[0].inputSchema.properties.query.maxLength, 1000);
});

t.test('tools/call: protocol errors for bad calls', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const unknown = await callTool(app, session, 'get_weather', {});
  t.equal(unknown.json.error?.code, -32601, 'unknown tool: -32601');
  t.notMatch(unknown.json.error?.message, /get_sources|list_categories|get_provenance|get_endorsements/, 'names no valid tool');

  // -32602 with the field and the rule in the message and in data (issue 33, item 1).
  const bad: [string, unknown, string, string | undefined][] = [
    ['missing arguments', undefined, 'query is required', 'query'],
    ['missing query', {}, 'query is required', 'query'],
    ['query not a string', { query: 42 }, 'query must be string (got 42)', 'query'],
    ['query too long', { query: 'a'.repeat(1001) }, 'query must NOT have more than 1000 characters (got a string of 1001 characters)', 'query'],
    ['extra key', { query: 'rust', verbose: true }, 'unknown argument "verbose": see the tool\'s inputSchema in tools/list', 'verbose'],
    ['threshold above 1', { query: 'rust', threshold: 1.5 }, 'threshold must be <= 1 (got 1.5)', 'threshold'],
    ['threshold not a number', { query: 'rust', threshold: '0.5' }, 'threshold must be number (got "0.5")', 'threshold'],
    ['arguments not an object', ['rust'], "get_sources's arguments must be an object", undefined],
  ];
  for (const [what, args, rule, field] of bad) {
    const { res, json } = await callTool(app, session, 'get_sources', args);
    t.equal(res.statusCode, 200, what);
    const expectedRule = field === undefined ? 'arguments must be an object' : rule;
    t.same(json.error, { code: -32602, message: `Invalid params: ${rule}`, data: field === undefined ? { rule: expectedRule } : { field, rule } }, what);
  }
  const extra = await callTool(app, session, 'list_categories', { unexpected: 1 });
  t.same(extra.json.error?.message, 'Invalid params: unknown argument "unexpected": see the tool\'s inputSchema in tools/list', 'no-argument tools allow no keys');
  const noName = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }, { 'mcp-session-id': session });
  t.equal(noName.json().error.code, -32602, 'tools/call without a name');
  const longest = await callTool(app, session, 'get_sources', { query: 'rust '.repeat(200) });
  t.ok(longest.json.result, 'a 1,000-character query is accepted');
});

t.test('get_sources: the match as plain text', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const { json } = await callTool(app, session, 'get_sources', { query: 'learn rust programming' }, 'q1');
  t.equal(json.id, 'q1');
  t.notOk(json.result?.isError);
  const text = json.result!.content[0]!.text;
  t.equal(json.result!.content[0]!.type, 'text');
  t.match(text, /^Category: Rust Learning$/m);
  t.match(text, /^Slug: rust-learning$/m);
  t.match(text, /^Registry version: 1\.0\.0$/m);
  t.match(text, `Curator: Three Good Sources curators (public key: ${TEST_PUBLIC_KEY})`);
  const book = text.indexOf('1. The Rust Programming Language');
  const second = text.indexOf('2. Rustlings');
  const third = text.indexOf('3. Zero To Production In Rust');
  t.ok(book > 0 && book < second && second < third, 'three sources in rank order');
  t.match(text, /URL: https:\/\/doc\.rust-lang\.org\/book\//);
  t.match(text, /Type: book/);
  t.match(text, /Why: /);
  t.notMatch(text, /\*\*|^#|`|\[.*\]\(/m, 'no markdown');
});

t.test('get_sources: an honest no-match', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const none = await callTool(app, session, 'get_sources', { query: 'quantum physics supercollider' });
  t.equal(none.json.result?.isError, true);
  const text = none.json.result!.content[0]!.text;
  t.match(text, /No category matches "quantum physics supercollider"/);
  t.match(text, /Available categories: bitcoin-node-setup, home-automation-private, linux-hardening/);

  const weak = await callTool(app, session, 'get_sources', { query: 'learn rust lifetimes for my job interview', threshold: 0.99 });
  t.equal(weak.json.result?.isError, true, 'a per-call threshold can reject');
  t.match(weak.json.result!.content[0]!.text, /the closest is rust-learning with score 0\.\d+, below the threshold 0\.99/);

  const empty = await callTool(app, session, 'get_sources', { query: '   the of   ' });
  t.equal(empty.json.result?.isError, true);
  t.match(empty.json.result!.content[0]!.text, /no words to match/);

  const vague = await callTool(app, session, 'get_sources', { query: 'security' });
  t.equal(vague.json.result?.isError, true, 'one everyday word is declined');
  t.match(vague.json.result!.content[0]!.text, /^"security" is a single common word, too vague to answer with three sources.* Say what you need about it/);

  const close = await callTool(app, session, 'get_sources', { query: 'secure my home server' });
  t.equal(close.json.result?.isError, true, 'a win by a hair is declined');
  t.match(close.json.result!.content[0]!.text, /clearly enough: [a-z-]+ \(score 0\.\d{3}\) and [a-z-]+ \(score 0\.\d{3}\) are too close to call/);
});

t.test('list_categories, get_provenance and get_endorsements', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const list = (await callTool(app, session, 'list_categories')).json.result!.content[0]!.text;
  const slugs = [...list.matchAll(/^([a-z0-9-]+): /gm)].map((m) => m[1]);
  t.equal(slugs.length, 10);
  t.same(slugs, [...slugs].sort(), 'sorted by slug');
  t.match(list, /^rust-learning: Rust Learning$/m);
  t.match(list, /Tags: programming, rust, learning/);

  const prov = (await callTool(app, session, 'get_provenance', {})).json.result!.content[0]!.text;
  t.match(prov, /^Curator: Three Good Sources curators$/m);
  t.match(prov, `Public key: ${TEST_PUBLIC_KEY} (Ed25519, z-base-32)`);
  t.match(prov, /^Registry version: 1\.0\.0$/m);
  t.match(prov, /^Registry updated: 2026-11-26$/m);
  t.match(prov, /^Endorsements: 0$/m);
  const signature = (await app.inject({ method: 'GET', url: '/registry/signature' })).json();
  t.match(prov, `SHA-256 of the canonical registry (RFC 8785): ${signature.sha256}`, 'the digest the server really publishes');
  t.match(prov, `Signature (Ed25519 over those exact bytes, base64): ${signature.signature}`);
  t.match(prov, `npx three-good-sources verify <this server's base URL> --pubkey ${TEST_PUBLIC_KEY}`);
  t.match(prov, /openssl pkeyutl -verify/);
  t.notMatch(prov, /ephemeral|changes when it restarts/, 'a configured key is not called ephemeral');

  const endorse = (await callTool(app, session, 'get_endorsements')).json.result!.content[0]!.text;
  t.match(endorse, /There are no endorsements yet/);
});

t.test('health and registry routes', async (t) => {
  const app = await build(t);
  const health = await app.inject({ method: 'GET', url: '/health' });
  t.same(health.json(), { status: 'ok', serverVersion: '0.1.0', registryVersion: '1.0.0', categories: 10 });
  const registry = await app.inject({ method: 'GET', url: '/registry' });
  t.equal(registry.json().version, '1.0.0');
  t.equal(Object.keys(registry.json().categories).length, 10);
  const ready = await app.inject({ method: 'GET', url: '/health/ready' });
  t.equal(ready.statusCode, 200);
  t.same(ready.json().sessionStore, { kind: 'memory', reachable: true });
  t.equal(ready.json().registry.version, '1.0.0');
  const missing = await app.inject({ method: 'GET', url: '/nothing' });
  t.equal(missing.statusCode, 404);
});

t.test('logs: one JSON line per request with its id, method and tool; nothing secret', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({ write (chunk, _enc, cb) { lines.push(...String(chunk).split('\n').filter(Boolean)); cb(); } });
  const app = await buildApp(testConfig({ logLevel: 'info' }), { logStream: stream });
  t.teardown(() => app.close());
  const session = await openSession(app);
  lines.length = 0;
  const res = await callTool(app, session, 'get_sources', { query: 'my secret project about rust' });
  t.equal(lines.length, 1, 'one line for one request');
  const entry = JSON.parse(lines[0]!);
  t.equal(entry.reqId, res.res.headers['x-request-id'], 'the request id, also returned to the client');
  t.equal(entry.rpcMethod, 'tools/call');
  t.equal(entry.tool, 'get_sources');
  t.equal(entry.statusCode, 200);
  t.notMatch(lines[0], session, 'no session id in the log');
  t.notMatch(lines[0], /secret project/, 'no query text in the log');
});

t.test('bad input that reaches the handlers never damages what the server holds', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const snapshot = async () => ({
    registry: (await app.inject({ method: 'GET', url: '/registry' })).body,
    signature: (await app.inject({ method: 'GET', url: '/registry/signature' })).body,
    categories: (await callTool(app, session, 'list_categories')).res.body,
    rust: (await callTool(app, session, 'get_sources', { query: 'learn rust programming' })).res.body,
  });
  const before = await snapshot();
  // Each of these passes the envelope and reaches the protocol handler or a tool, which must refuse it.
  const hostile: [string, unknown][] = [
    ['control characters and non-characters', { query: '\u0000\uffff\ud800'.repeat(300) }],
    ['a query as long as allowed, of one repeated keyword', { query: 'rust '.repeat(199) }],
    ['a threshold of 0', { query: 'learn rust programming', threshold: 0 }],
    ['a threshold of 1', { query: 'learn rust programming', threshold: 1 }],
    ['a threshold out of range', { query: 'x', threshold: 1e308 }],
    ['a query of the wrong type', { query: { toString: 'x' } }],
    ['an unknown argument named like a prototype', { query: 'x', prototype: { polluted: true } }],
    ['an array for arguments', ['learn rust']],
  ];
  for (const [what, args] of hostile) {
    const { res, json } = await callTool(app, session, 'get_sources', args);
    t.equal(res.statusCode, 200, `${what}: answered by the handler`);
    t.ok(json.result !== undefined || json.error?.code === -32602, `${what}: a result or -32602 from the tool layer`);
  }
  await rpc(app, { jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { tools: null }, clientInfo: { name: '\u0000', version: 'x'.repeat(5000) } } });
  await rpc(app, { jsonrpc: '2.0', id: 10, method: 'tools/list', params: { cursor: { __proto__: 1 } } }, { 'mcp-session-id': session });
  t.same(await snapshot(), before, 'registry, signature and answers are byte for byte the same');
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted');
});

t.test('the registry and remembered answers a handler shares are frozen', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.4);
  t.ok(Object.isFrozen(catalog.registry.categories['rust-learning']!.sources[0]), 'a source deep in the registry is frozen');
  const answer = getSources.run({ query: 'learn rust programming' }, catalog);
  t.throws(() => {
    (answer.content[0] as { text: string }).text = 'tampered';
  }, TypeError, 'a remembered answer cannot be changed by whoever received it');
  t.equal(answersFor(catalog).get('\u0000learn rust programming', () => ({ result: answer, asked: { outcome: 'answered', totals: [], items: [] } })).result, answer, 'and it is the one remembered');
});

t.test('MCP_HEADERS sanity: curl-like requests without Accept still work', async (t) => {
  const app = await build(t);
  const res = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': MCP_HEADERS['content-type'] }, payload: JSON.stringify(init()) });
  t.equal(res.statusCode, 200);
});

t.test('initialize sent as a notification is refused', async (t) => {
  const app = await build(t);
  const res = await rpc(app, { jsonrpc: '2.0', method: 'initialize', params: INIT_PARAMS });
  t.equal(res.statusCode, 400);
  t.equal(res.json().error.code, -32600);
  t.notOk('id' in res.json());
});

t.test('tools on a registry with endorsements, and on an empty one', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), '3gs-tools-'));
  const data = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8'));
  const peer = otherPublicKey();
  data.endorsements = [
    { pubkey: peer, url: 'https://peer.example.org/', name: 'Peer Curators', since: '2026-10-01' },
  ];
  const endorsed = join(dir, 'endorsed.json');
  await writeFile(endorsed, JSON.stringify(data));
  const empty = join(dir, 'empty.json');
  await writeFile(empty, JSON.stringify({ ...data, endorsements: [], categories: {} }));

  const app = await build(t, { registryPath: endorsed });
  const session = await openSession(app);
  const list = (await callTool(app, session, 'get_endorsements')).json.result!.content[0]!.text;
  t.match(list, /^This curator endorses 1 curator \(registry version 1\.0\.0\):$/m);
  t.match(list, /^1\. Peer Curators$/m);
  t.match(list, `Public key: ${peer}`);
  t.match(list, /URL: https:\/\/peer\.example\.org\//);
  t.match(list, /Since: 2026-10-01/);
  t.match((await callTool(app, session, 'get_provenance')).json.result!.content[0]!.text, /^Endorsements: 1$/m);

  const bare = await build(t, { registryPath: empty });
  const s2 = await openSession(bare);
  t.equal((await callTool(bare, s2, 'list_categories')).json.result!.content[0]!.text, 'The registry has no categories yet.');
  const none = await callTool(bare, s2, 'get_sources', { query: 'learn rust' });
  t.equal(none.json.result?.isError, true);
  t.match(none.json.result!.content[0]!.text, /no category comes near it\. .*The registry has no categories yet\./);
  t.equal((await bare.inject({ method: 'GET', url: '/health' })).json().categories, 0);
});

t.test('fields follow the negotiated version: no title, outputSchema or structuredContent for 2025-03-26', async (t) => {
  const app = await build(t);
  for (const [version, newer] of [['2025-03-26', false], ['2025-06-18', true], ['2025-11-25', true]] as const) {
    const session = await openSession(app, version);
    const tools = (await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': session })).json().result.tools;
    t.equal('title' in tools[0], newer, `${version}: title`);
    t.equal('outputSchema' in tools[0], newer, `${version}: outputSchema`);
    const call = await callTool(app, session, 'get_sources', { query: 'learn rust programming' });
    t.equal('structuredContent' in call.json.result!, newer, `${version}: structuredContent`);
    t.notOk('resultType' in call.json.result!, `${version}: no 2026 resultType`);
  }
});
