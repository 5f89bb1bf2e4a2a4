import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { buildApp } from '../../../src/app.js';
import { build, callTool, MCP_HEADERS, openSession, rpc, testConfig } from '../../helpers/build.js';

const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };
/** Names every plain object inherits: a lookup keyed by client input must never find them. */
const INHERITED = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];

type App = Awaited<ReturnType<typeof build>>;

/** Fastify's own error shape, which every route but /mcp answers in. */
function isPlainError (t: Test, body: Record<string, unknown>, status: number): void {
  t.same(Object.keys(body).sort(), ['error', 'message', 'statusCode'], `${status}: { statusCode, error, message }`);
  t.equal(body.statusCode, status);
  t.notOk('jsonrpc' in body, 'not a JSON-RPC body');
}

/** A raw HTTP exchange on a real socket, for requests inject() cannot make (no Host, bad URLs). */
async function raw (app: App, request: string): Promise<{ status: number; body: string }> {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  const socket = connect(address.port, '127.0.0.1');
  socket.end(request);
  let text = '';
  for await (const chunk of socket) text += chunk;
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body };
}

t.test('a 2026-07-28 method named like an inherited object property gets 404 / -32601', async (t) => {
  const app = await build(t);
  for (const method of INHERITED) {
    const res = await rpc(app, { jsonrpc: '2.0', id: 1, method, params: { _meta: META } }, { 'mcp-protocol-version': V, 'mcp-method': method });
    t.equal(res.statusCode, 404, `${method}: 404`);
    t.equal(res.json().error.code, -32601, `${method}: -32601`);
    t.match(res.json().error.message, /^Method not found: /, `${method}: said plainly, no native code`);
    t.notMatch(res.body, /native code/);
  }
});

t.test('the same names as 2025 methods and as tool names are unknown, not inherited', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  for (const name of INHERITED) {
    const method = await rpc(app, { jsonrpc: '2.0', id: 1, method: name }, { 'mcp-session-id': session });
    t.equal(method.json().error?.code, -32601, `method ${name}: -32601`);
    const tool = await callTool(app, session, name, {});
    t.equal(tool.json.error?.code, -32601, `tool ${name}: unknown tool`);
  }
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});

t.test('a body with __proto__ or constructor.prototype is refused, saying what was refused', async (t) => {
  const app = await build(t);
  for (const body of [
    '{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"x":1}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_sources","arguments":{"query":"x","constructor":{"prototype":{"polluted":true}}}}}',
  ]) {
    const res = await rpc(app, body);
    t.equal(res.statusCode, 400);
    t.equal(res.json().error.code, -32600, 'an invalid request, not a parse error');
    t.match(res.json().error.message, /"__proto__" or "constructor\.prototype" key, which is refused/);
  }
  const broken = await rpc(app, '{"jsonrpc":"2.0",');
  t.equal(broken.json().error.code, -32700, 'broken JSON is still a parse error');
  t.match(broken.json().error.message, /not valid JSON/);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});

t.test('a compressed body gets 415 with a JSON-RPC error, not a parse error', async (t) => {
  const app = await build(t);
  const body = gzipSync(JSON.stringify(PING));
  for (const encoding of ['gzip', 'deflate', 'br', 'GZIP']) {
    const res = await app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, 'content-encoding': encoding }, payload: body });
    t.equal(res.statusCode, 415, `${encoding}: 415`);
    t.equal(res.json().error.code, -32600);
    t.match(res.json().error.message, /without Content-Encoding/);
  }
  const identity = await rpc(app, PING, { 'content-encoding': 'identity' });
  t.equal(identity.statusCode, 200, 'identity is no encoding');
});

t.test('malformed URLs and unknown routes answer in the non-MCP error shape', async (t) => {
  const app = await build(t);
  await app.listen({ host: '127.0.0.1', port: 0 });
  for (const path of ['/%', '/%zz', '/health/%E0%A4%A']) {
    const res = await raw(app, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    t.equal(res.status, 400, `${path}: 400`);
    isPlainError(t, JSON.parse(res.body) as Record<string, unknown>, 400);
    t.match(res.body, /the URL is malformed/);
  }
  const missing = await app.inject({ method: 'GET', url: '/nope' });
  t.equal(missing.statusCode, 404);
  isPlainError(t, missing.json(), 404);
});

t.test('Origin and Host refusals: JSON-RPC on /mcp, the plain shape elsewhere', async (t) => {
  const app = await build(t);
  const foreign = { origin: 'https://evil.example.com' };
  const mcp = await rpc(app, PING, foreign);
  t.equal(mcp.statusCode, 403, 'a foreign Origin on /mcp: 403');
  t.same(mcp.json(), { jsonrpc: '2.0', error: { code: -32600, message: 'Forbidden: this Origin is not allowed' } });
  for (const url of ['/%6Dcp', '/%6D%63%70', '/mcp?x=1']) {
    const encoded = await app.inject({ method: 'POST', url, headers: { ...MCP_HEADERS, ...foreign }, payload: JSON.stringify(PING) });
    t.equal(encoded.statusCode, 403, `${url} reaches the MCP route, so it meets the same Origin check`);
    t.same(encoded.json(), mcp.json(), `${url}: in the JSON-RPC shape`);
  }
  for (const url of ['/health', '/metrics', '/registry']) {
    const res = await app.inject({ method: 'GET', url, headers: foreign });
    t.equal(res.statusCode, 200, `${url}: a page elsewhere cannot read it (no CORS headers), so a foreign Origin is not refused`);
    t.equal(res.headers['access-control-allow-origin'], undefined, `${url}: no CORS grant`);
  }
  const rebound = { host: 'evil.example.com' };
  const mcpHost = await rpc(app, PING, rebound);
  t.equal(mcpHost.statusCode, 403);
  t.same(mcpHost.json(), { jsonrpc: '2.0', error: { code: -32600, message: 'Forbidden: the Host "evil.example.com" is not allowed on a server listening on loopback; if it is this server\'s public name behind a proxy, add it to ALLOWED_HOSTS' } });
  for (const url of ['/health', '/health/ready', '/metrics', '/registry', '/registry/signature', '/nope']) {
    const res = await app.inject({ method: 'GET', url, headers: rebound });
    t.equal(res.statusCode, 403, `${url}: a DNS-rebinding Host is refused`);
    isPlainError(t, res.json(), 403);
  }
});

t.test('a request with no Host header is refused on a loopback bind', async (t) => {
  const app = await build(t);
  await app.listen({ host: '127.0.0.1', port: 0 });
  // HTTP/1.1 requires Host: Node refuses it before us. HTTP/1.0 does not: our policy refuses it.
  const old = await raw(app, 'POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"ping"}');
  t.equal(old.status, 403, 'HTTP/1.0 without Host: 403');
  t.match(JSON.parse(old.body), { error: { code: -32600, message: /^Forbidden: the Host \(none\) is not allowed .* add it to ALLOWED_HOSTS$/ } });
  const health = await raw(app, 'GET /health HTTP/1.0\r\n\r\n');
  t.equal(health.status, 403);
  isPlainError(t, JSON.parse(health.body) as Record<string, unknown>, 403);
  const modern = await raw(app, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n');
  t.equal(modern.status, 400, 'HTTP/1.1 without Host: 400 from Node');
});

t.test('an unexpected failure is a -32603 on /mcp and a plain 500 elsewhere, with no detail on the wire', async (t) => {
  const lines: { level: number; msg: string; err?: { message: string } }[] = [];
  const app = await buildApp(testConfig({ logLevel: 'error' }), { logStream: { write: (l: string) => { lines.push(JSON.parse(l)); } } });
  t.teardown(() => app.close());
  // A fault injected where no input can reach: the last line of defence must still answer well.
  app.addHook('preHandler', (request, _reply, done) => {
    const fault = request.headers['x-test-fault'];
    if (fault === 'crash') return done(new Error('secret internals at /srv/app.ts:42'));
    if (fault === 'teapot') return done(Object.assign(new Error('secret teapot detail'), { statusCode: 418 }));
    done();
  });
  const mcp = await rpc(app, PING, { 'x-test-fault': 'crash' });
  t.equal(mcp.statusCode, 500);
  t.same(mcp.json(), { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' } }, 'no detail, no id, no stack');
  const health = await app.inject({ method: 'GET', url: '/health', headers: { 'x-test-fault': 'crash' } });
  t.equal(health.statusCode, 500);
  t.same(health.json(), { statusCode: 500, error: 'Internal Server Error', message: 'Internal error' });
  t.notMatch(mcp.body + health.body, /secret|srv|at /);
  t.equal(lines.filter((l) => l.level === 50 && l.err?.message === 'secret internals at /srv/app.ts:42').length, 2, 'the operator sees it in the log, once per request');

  const teapot = await rpc(app, PING, { 'x-test-fault': 'teapot' });
  t.equal(teapot.statusCode, 418, 'a client error keeps its status');
  t.same(teapot.json(), { jsonrpc: '2.0', error: { code: -32600, message: "I'm a Teapot" } }, 'with the status text, not the detail');
  t.equal((await rpc(app, PING)).statusCode, 200, 'the server goes on');
});
