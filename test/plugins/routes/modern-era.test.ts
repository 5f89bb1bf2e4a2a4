import t from 'tap';
import { build, openSession, rpc } from '../../helpers/build.js';

const V = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'tap', version: '1.0.0' },
};
type App = Awaited<ReturnType<typeof build>>;

/** A well-formed 2026-07-28 request: envelope in the body, mirrored headers. */
function modern (app: App, method: string, params: Record<string, unknown> = {}, headers: Record<string, string | undefined> = {}, id: unknown = 1) {
  const base: Record<string, string> = { 'mcp-protocol-version': V, 'mcp-method': method };
  if (typeof params.name === 'string') base['mcp-name'] = params.name;
  const merged = Object.fromEntries(Object.entries({ ...base, ...headers }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return rpc(app, { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }, merged);
}

t.test('server/discover: versions, capabilities, instructions, serverInfo and cache hints', async (t) => {
  const app = await build(t);
  const res = await modern(app, 'server/discover');
  t.equal(res.statusCode, 200);
  t.equal(res.headers['mcp-session-id'], undefined, 'no session is minted');
  const r = res.json().result;
  t.same(r.supportedVersions, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
  t.same(r.capabilities, { tools: {} });
  t.match(r.instructions, /get_sources/);
  t.equal(r.resultType, 'complete');
  t.equal(r._meta['io.modelcontextprotocol/serverInfo'].name, 'three-good-sources');
  t.equal(r._meta['io.modelcontextprotocol/serverInfo'].title, 'Three Good Sources');
  t.ok(Number.isInteger(r.ttlMs) && r.ttlMs >= 0, 'ttlMs');
  t.equal(r.cacheScope, 'public');
});

t.test('tools/list and tools/call are served statelessly, with resultType and serverInfo', async (t) => {
  const app = await build(t);
  const list = (await modern(app, 'tools/list')).json().result;
  t.same(list.tools.map((x: { name: string }) => x.name), ['get_sources', 'get_federated_sources', 'list_categories', 'get_provenance', 'get_endorsements', 'get_history'], 'fixed order');
  t.equal(list.resultType, 'complete');
  t.equal(list.cacheScope, 'public');
  t.ok(list.ttlMs > 0);
  t.ok(list._meta['io.modelcontextprotocol/serverInfo']);
  t.same((await modern(app, 'tools/list')).json().result.tools, list.tools, 'the same list every time');

  const call = await modern(app, 'tools/call', { name: 'get_sources', arguments: { query: 'learn rust programming' } }, {}, 'c1');
  t.equal(call.statusCode, 200);
  const r = call.json();
  t.equal(r.id, 'c1');
  t.equal(r.result.resultType, 'complete');
  t.equal(r.result.structuredContent.category.slug, 'rust-learning');
  t.match(r.result.content[0].text, /Slug: rust-learning/);
  t.ok(r.result._meta['io.modelcontextprotocol/serverInfo']);
});

t.test('Mcp-Session-Id on a modern request is ignored, never echoed', async (t) => {
  const app = await build(t);
  const res = await modern(app, 'tools/list', {}, { 'mcp-session-id': 'whatever-stale-id' });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['mcp-session-id'], undefined);
});

t.test('header rules: missing, malformed or mismatched headers get 400 with -32020', async (t) => {
  const app = await build(t);
  const call = { name: 'get_sources', arguments: { query: 'rust' } };
  const cases: [string, string, Record<string, unknown>, Record<string, string | undefined>][] = [
    ['no MCP-Protocol-Version', 'tools/list', {}, { 'mcp-protocol-version': undefined }],
    ['no Mcp-Method', 'tools/list', {}, { 'mcp-method': undefined }],
    ['Mcp-Method differs from the body', 'tools/list', {}, { 'mcp-method': 'tools/call' }],
    ['Mcp-Method differs in case', 'tools/list', {}, { 'mcp-method': 'TOOLS/LIST' }],
    ['no Mcp-Name on tools/call', 'tools/call', call, { 'mcp-name': undefined }],
    ['Mcp-Name differs from params.name', 'tools/call', call, { 'mcp-name': 'list_categories' }],
    ['Mcp-Name is a broken base64 sentinel', 'tools/call', call, { 'mcp-name': '=?base64?***?=' }],
    ['Mcp-Name base64 of another name', 'tools/call', call, { 'mcp-name': `=?base64?${Buffer.from('list_categories').toString('base64')}?=` }],
  ];
  for (const [what, method, params, headers] of cases) {
    const res = await modern(app, method, params, headers, 9);
    t.equal(res.statusCode, 400, `${what}: 400`);
    t.equal(res.json().error?.code, -32020, `${what}: -32020`);
    t.equal(res.json().id, 9, `${what}: id echoed`);
  }
  const versionMismatch = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }, { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' });
  t.equal(versionMismatch.json().error.code, -32020, 'MCP-Protocol-Version differs from _meta');
});

t.test('Mcp-Name may come base64-encoded', async (t) => {
  const app = await build(t);
  const encoded = `=?base64?${Buffer.from('get_sources').toString('base64')}?=`;
  const res = await modern(app, 'tools/call', { name: 'get_sources', arguments: { query: 'nostr relay' } }, { 'mcp-name': encoded });
  t.equal(res.statusCode, 200);
  t.equal(res.json().result.structuredContent.category.slug, 'nostr-development');
});

t.test('a missing _meta field gets 400 with -32602; an unsupported version 400 with -32022', async (t) => {
  const app = await build(t);
  const h = { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' };
  const noVersion = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } } }, h);
  t.equal(noVersion.statusCode, 400);
  t.equal(noVersion.json().error.code, -32602);
  const noCaps = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V } } }, h);
  t.equal(noCaps.statusCode, 400);
  t.equal(noCaps.json().error.code, -32602);
  const noEnvelope = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, h);
  t.equal(noEnvelope.statusCode, 400, 'a modern header without the envelope');
  t.equal(noEnvelope.json().error.code, -32602);

  const old = '1900-01-01';
  const unsupported = await rpc(
    app,
    { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': old } } },
    { 'mcp-protocol-version': old, 'mcp-method': 'tools/list' }
  );
  t.equal(unsupported.statusCode, 400);
  t.same(unsupported.json(), {
    jsonrpc: '2.0',
    id: 4,
    error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: old } },
  });
});

t.test('methods we do not implement get 404 with -32601', async (t) => {
  const app = await build(t);
  for (const method of ['prompts/list', 'prompts/get', 'resources/list', 'resources/read', 'completion/complete', 'ping', 'logging/setLevel', 'initialize', 'nonsense']) {
    const params = method === 'prompts/get' ? { name: 'p' } : method === 'resources/read' ? { uri: 'file:///x' } : {};
    const headers = method === 'resources/read' ? { 'mcp-name': 'file:///x' } : {};
    const res = await modern(app, method, params, headers);
    t.equal(res.statusCode, 404, `${method}: 404`);
    t.equal(res.json().error.code, -32601, `${method}: -32601`);
  }
});

t.test('subscriptions/listen: acknowledged with nothing honoured, then a graceful end, over SSE', async (t) => {
  const app = await build(t);
  const res = await modern(app, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, {}, 'sub-1');
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/event-stream/);
  t.equal(res.headers['x-accel-buffering'], 'no');
  const events = res.body.split('\n\n').filter(Boolean).map((e) => JSON.parse(e.replace(/^event: message\ndata: /, '')));
  t.equal(events.length, 2);
  t.same(events[0], {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' }, notifications: {} },
  });
  t.equal(events[1].id, 'sub-1');
  t.equal(events[1].result.resultType, 'complete');
  t.equal(events[1].result._meta['io.modelcontextprotocol/subscriptionId'], 'sub-1');

  const jsonOnly = await modern(app, 'subscriptions/listen', { notifications: {} }, { accept: 'application/json' });
  t.equal(jsonOnly.statusCode, 406, 'a stream needs a client that accepts SSE');
});

t.test('GET and DELETE from a modern client: 405', async (t) => {
  const app = await build(t);
  const get = await app.inject({ method: 'GET', url: '/mcp', headers: { 'mcp-protocol-version': V } });
  t.equal(get.statusCode, 405);
  const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-protocol-version': V } });
  t.equal(del.statusCode, 405);
  t.equal(del.headers.allow, 'POST, DELETE');
});

t.test('a modern notification gets 202', async (t) => {
  const app = await build(t);
  const res = await rpc(app, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: META } }, { 'mcp-protocol-version': V });
  t.equal(res.statusCode, 202);
  t.equal(res.body, '');
});

t.test('both eras on one endpoint at once', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const legacy = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': session });
  const current = await modern(app, 'tools/list');
  t.equal(legacy.statusCode, 200);
  t.equal(current.statusCode, 200);
  t.notOk('resultType' in legacy.json().result, 'no 2026 fields for a 2025 session');
  t.equal(current.json().result.resultType, 'complete');
});

t.test('Accept: JSON when accepted, SSE when only SSE is, 406 when neither', async (t) => {
  const app = await build(t);
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  for (const accept of ['application/json', '*/*', 'application/*', 'application/json, text/event-stream', 'text/html, application/json;q=0.5']) {
    const res = await rpc(app, ping, { accept });
    t.equal(res.statusCode, 200, accept);
    t.match(res.headers['content-type'], /^application\/json/, `${accept}: JSON`);
  }
  const missing = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ping) });
  t.match(missing.headers['content-type'], /^application\/json/, 'no Accept header: JSON');
  const sseOnly = await rpc(app, ping, { accept: 'text/event-stream' });
  t.equal(sseOnly.statusCode, 200);
  t.match(sseOnly.headers['content-type'], /^text\/event-stream/);
  t.same(JSON.parse(sseOnly.body.replace(/^event: message\ndata: /, '')), { jsonrpc: '2.0', id: 1, result: {} });
  for (const accept of ['text/html', 'application/json;q=0, text/plain']) {
    const res = await rpc(app, ping, { accept });
    t.equal(res.statusCode, 406, `${accept}: 406`);
    t.notOk('id' in res.json());
  }
});

t.test('bound to loopback, the Host header must be a localhost name', async (t) => {
  const app = await build(t);
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'localhost']) {
    t.equal((await rpc(app, ping, { host })).statusCode, 200, host);
  }
  const rebound = await rpc(app, ping, { host: 'evil.example.com' });
  t.equal(rebound.statusCode, 403, 'a rebinding host is refused');
  t.notOk('id' in rebound.json());

  const open = await build(t, { host: '0.0.0.0' });
  t.equal((await rpc(open, ping, { host: 'mcp.example.com' })).statusCode, 200, 'not checked when bound to all interfaces');
});
