import t from 'tap';
import { buildApp } from '../../../src/app.js';
import { RedisSessionStore, RedisUnreachable } from '../../../src/sessions/redis.js';
import { SessionStoreUnavailable } from '../../../src/sessions/store.js';
import { build, callTool, openSession, rpc, testConfig } from '../../helpers/build.js';
import { freePort, startRedis } from '../../helpers/redis.js';

const V = '2026-07-28';
const modernList = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} } },
};
const modernHeaders = { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' };

t.test('two servers share sessions through Redis', async (t) => {
  const redis = await startRedis(t);
  const a = await build(t, { redisUrl: redis.url });
  const b = await build(t, { redisUrl: redis.url });
  const session = await openSession(a);
  const onB = await callTool(b, session, 'get_sources', { query: 'learn rust programming' });
  t.equal(onB.res.statusCode, 200, 'initialize on one, call tools on the other');
  t.match(onB.json.result?.content[0]?.text, /Slug: rust-learning/);
  const list = await rpc(b, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': session });
  t.ok('title' in list.json().result.tools[0], 'the negotiated version (2025-11-25) travels with the session');

  const del = await b.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session } });
  t.equal(del.statusCode, 200, 'DELETE on the other server');
  const after = await rpc(a, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': session });
  t.equal(after.statusCode, 404, 'the session is gone for both');

  const health = (await a.inject({ method: 'GET', url: '/health/ready' })).json();
  t.same(health.sessionStore, { kind: 'redis', reachable: true });
});

t.test('Redis lost while serving: 503 with Retry-After for sessions, stateless requests go on, recovery by itself', async (t) => {
  const redis = await startRedis(t);
  const app = await build(t, { redisUrl: redis.url });
  const before = await openSession(app);

  await redis.stop();
  const init = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  t.equal(init.statusCode, 503, 'initialize needs the store: 503');
  t.equal(init.headers['retry-after'], '2');
  t.same(init.json(), { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Service unavailable: sessions cannot be reached right now; retry shortly' } });
  const call = await rpc(app, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': before });
  t.equal(call.statusCode, 503, 'a session request: 503');
  const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': before } });
  t.equal(del.statusCode, 503, 'DELETE: 503');
  t.equal((await rpc(app, modernList, modernHeaders)).statusCode, 200, 'stateless 2026-07-28 requests keep working');
  t.equal((await rpc(app, { jsonrpc: '2.0', id: 3, method: 'ping' })).statusCode, 200, 'ping needs no session');
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200, 'still alive');
  const ready = await app.inject({ method: 'GET', url: '/health/ready' });
  t.equal(ready.statusCode, 503, 'not ready');
  t.same(ready.json().sessionStore, { kind: 'redis', reachable: false });

  await redis.start();
  let recovered = false;
  for (let i = 0; i < 50 && !recovered; i++) {
    await new Promise((r) => setTimeout(r, 100));
    recovered = (await app.inject({ method: 'GET', url: '/health/ready' })).statusCode === 200;
  }
  t.ok(recovered, 'ready again once Redis is back');
  const fresh = await openSession(app);
  t.equal((await callTool(app, fresh, 'list_categories')).res.statusCode, 200, 'sessions work again');
});

t.test('the Redis store expires idle sessions and caps their number', async (t) => {
  const redis = await startRedis(t);
  const store = await RedisSessionStore.connect({ url: redis.url, ttlMs: 300, maxSessions: 3, prefix: `t${Date.now()}:` });
  t.teardown(() => store.close());
  const state = { protocolVersion: '2025-11-25', initialized: false };
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push(await store.create(state));
  t.equal(await store.size(), 3, 'never more than the cap');
  t.equal(await store.get(ids[0]!), undefined, 'the oldest went first');
  t.same(await store.get(ids[4]!), state);
  t.equal(await store.update(ids[4]!, { ...state, initialized: true }), true);
  t.same(await store.get(ids[4]!), { ...state, initialized: true });
  t.equal(await store.update('nope', state), false);
  await new Promise((r) => setTimeout(r, 450));
  t.equal(await store.get(ids[4]!), undefined, 'expired after the idle TTL');
  t.equal(await store.size(), 0, 'the index forgets expired sessions');
  const id = await store.create(state);
  t.equal(await store.delete(id), true);
  t.equal(await store.delete(id), false);

  await redis.stop();
  await t.rejects(store.get(id), SessionStoreUnavailable, 'fails fast while Redis is down');
  t.equal(await store.ping(), false);
});

t.test('Redis unreachable at start-up: buildApp refuses, naming the host and not the password', async (t) => {
  const port = await freePort();
  const url = `redis://:hunter2@127.0.0.1:${port}`;
  await t.rejects(buildApp(testConfig({ redisUrl: url })), RedisUnreachable);
  await t.rejects(buildApp(testConfig({ redisUrl: url })), { message: new RegExp(`^cannot connect to Redis at 127\\.0\\.0\\.1:${port} \\(REDIS_URL\\): ECONNREFUSED$`) });
});
