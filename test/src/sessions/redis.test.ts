import t from 'tap';
import { buildApp } from '../../../src/app.js';
import { RedisSessionStore, RedisUnreachable } from '../../../src/sessions/redis.js';
import { SessionStoreUnavailable } from '../../../src/sessions/store.js';
import { build, callTool, openSession, rpc, testConfig } from '../../helpers/build.js';
import { Redis } from 'ioredis';
import { freePort, redisSkip, startRedis } from '../../helpers/redis.js';

const V = '2026-07-28';
const modernList = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} } },
};
const modernHeaders = { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' };

t.test('two servers share sessions through Redis', { skip: redisSkip() }, async (t) => {
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

t.test('Redis lost while serving: 503 with Retry-After for sessions, stateless requests go on, recovery by itself', { skip: redisSkip(true) }, async (t) => {
  const redis = await startRedis(t, true);
  const lines: { level: number; msg: string }[] = [];
  const logStream = { write: (line: string) => { lines.push(JSON.parse(line) as { level: number; msg: string }); } };
  const app = await buildApp(testConfig({ redisUrl: redis.url, logLevel: 'warn' }), { logStream });
  t.teardown(() => app.close());
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
    await new Promise((resolve) => setTimeout(resolve, 100));
    recovered = (await app.inject({ method: 'GET', url: '/health/ready' })).statusCode === 200;
  }
  t.ok(recovered, 'ready again once Redis is back');
  const fresh = await openSession(app);
  t.equal((await callTool(app, fresh, 'list_categories')).res.statusCode, 200, 'sessions work again');

  // An operator at LOG_LEVEL=warn sees the outage: one line when lost, one when back.
  const lost = lines.filter((l) => /Redis session store lost/.test(l.msg));
  const back = lines.filter((l) => /Redis session store is back/.test(l.msg));
  t.equal(lost.length, 1, 'one line when Redis is lost, however many reconnects fail');
  t.equal(lost[0]?.level, 50, 'at error level');
  t.equal(back.length, 1, 'one line when it is back');
  t.equal(back[0]?.level, 40, 'at warn level');
});

t.test('the Redis store expires idle sessions and caps their number', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const store = await RedisSessionStore.connect({ url: redis.url, ttlMs: 300, maxSessions: 3, prefix: `t${Date.now()}:` });
  t.teardown(() => store.close());
  const state = { protocolVersion: '2025-11-25', initialized: false };
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push(await store.create(state));
  t.equal(await store.size(), 3, 'never more than the cap');
  t.equal(await store.get(ids[0]!), undefined, 'the oldest went first');
  t.equal(await store.get(ids[1]!), undefined, 'then the next oldest');
  t.same(await store.get(ids[4]!), state);
  t.equal(await store.update(ids[4]!, { ...state, initialized: true }), true);
  t.same(await store.get(ids[4]!), { ...state, initialized: true });
  t.equal(await store.update('nope', state), false);
  await new Promise((resolve) => setTimeout(resolve, 450));
  t.equal(await store.get(ids[4]!), undefined, 'expired after the idle TTL');
  t.equal(await store.size(), 0, 'the index forgets expired sessions');
  const id = await store.create(state);
  t.equal(await store.delete(id), true);
  t.equal(await store.delete(id), false);
});

t.test('the Redis store evicts exactly the least recently used, even for sessions made in the same millisecond', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const state = { protocolVersion: '2025-11-25', initialized: false };
  const store = await RedisSessionStore.connect({ url: redis.url, ttlMs: 60_000, maxSessions: 3, prefix: `lru${Date.now()}:` });
  t.teardown(() => store.close());
  // Sessions made back to back share a millisecond: the order must still be exact.
  const [a, b, c] = await Promise.all([store.create(state), store.create(state), store.create(state)]);
  await store.get(a!);
  const d = await store.create(state);
  t.equal(await store.get(b!), undefined, 'the least recently used (b) went, not a, which was just used');
  for (const [name, id] of [['a', a], ['c', c], ['d', d]] as const) t.same(await store.get(id!), state, `${name} is kept`);

  // Cap 1 in a tight loop: the session just created is the newest and must always survive.
  const one = await RedisSessionStore.connect({ url: redis.url, ttlMs: 60_000, maxSessions: 1, prefix: `one${Date.now()}:` });
  t.teardown(() => one.close());
  let newestEvicted = 0;
  for (let i = 0; i < 200; i++) {
    const id = await one.create(state);
    if ((await one.get(id)) === undefined) newestEvicted++;
  }
  t.equal(newestEvicted, 0, 'the newest session was never the one evicted (200 runs)');
  t.equal(await one.size(), 1);
});

t.test('Redis errors inside a transaction answer 503, not 500, and the store fails fast while Redis is down', { skip: redisSkip(true) }, async (t) => {
  const redis = await startRedis(t, true);
  const prefix = `tx${Date.now()}:`;
  const store = await RedisSessionStore.connect({ url: redis.url, ttlMs: 60_000, maxSessions: 10, prefix });
  t.teardown(() => store.close());
  const id = await store.create({ protocolVersion: '2025-11-25', initialized: true });
  // A key of the wrong type makes ZREM fail inside the MULTI of delete (WRONGTYPE).
  const raw = new Redis(redis.url);
  t.teardown(() => raw.quit());
  await raw.del(`${prefix}index`);
  await raw.set(`${prefix}index`, 'not a sorted set');
  await t.rejects(store.delete(id), SessionStoreUnavailable, 'a failed command in a transaction is reported, not swallowed');
  await t.rejects(store.create({ protocolVersion: '2025-11-25', initialized: false }), SessionStoreUnavailable, 'a failed script likewise');

  const app = await build(t, { redisUrl: redis.url });
  const session = await openSession(app);
  await raw.set('3gs:session:index', 'not a sorted set');
  const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session } });
  t.equal(del.statusCode, 503, 'through the endpoint: 503');
  t.equal(del.headers['retry-after'], '2');
  t.equal(del.json().error.code, -32603);

  // A client chooses its Mcp-Session-Id: no value may name the store's own keys.
  await raw.del('3gs:session:index');
  const mine = await openSession(app);
  for (const name of ['index', 'clock', 's:', `s:${mine}`, '../index']) {
    const res = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': name });
    t.equal(res.statusCode, 404, `session id "${name}": not found, never the store's own key`);
    const gone = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': name } });
    t.equal(gone.statusCode, 404, `DELETE "${name}": 404, nothing deleted`);
  }
  t.equal((await rpc(app, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': mine })).statusCode, 200, 'real sessions still work');

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
