import t from 'tap';
import { Redis } from 'ioredis';
import { askedOf, SEP, type Asked } from '../../../src/demand/asked.js';
import { DAY_MS } from '../../../src/demand/client-bucket.js';
import { RedisDemandStore } from '../../../src/demand/redis-store.js';
import { buildMatcher, prepareQuery } from '../../../src/matcher/matcher.js';
import { loadRegistry } from '../../../src/registry/load.js';
import { RedisUnreachable } from '../../../src/sessions/redis.js';
import { buildApp } from '../../../src/app.js';
import { build, SHIPPED_REGISTRY, testConfig } from '../../helpers/build.js';
import { freePort, redisSkip, startRedis } from '../../helpers/redis.js';

const SECRET = 'a-test-demand-secret-of-32-characters-or-more';
const matcher = buildMatcher(await loadRegistry(SHIPPED_REGISTRY));
const asked = (query: string): Asked => askedOf(matcher, prepareQuery(query), matcher.match(query));
const clients = (n: number, net = 1) => Array.from({ length: n }, (_, i) => `10.${net}.${i >> 8}.${i & 255}`);

async function store (t: { teardown(fn: () => unknown): void }, url: string, options: { now?: () => number; itemsPerDay?: number; windowDays?: number } = {}) {
  const s = await RedisDemandStore.connect({
    url,
    secret: SECRET,
    minClients: 5,
    windowDays: options.windowDays ?? 30,
    itemsPerDay: options.itemsPerDay ?? 1000,
    flushMs: 60_000,
    ...(options.now ? { now: options.now } : {}),
  });
  t.teardown(() => s.close());
  return s;
}

t.test('k in Redis: k - 1 clients leave no text at all; k clients reveal it; totals count every request', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const s = await store(t, redis.url);
  for (const c of clients(4)) for (let i = 0; i < 10; i++) s.record(asked('sourdough bread starter'), c);
  let snapshot = await s.snapshot();
  t.same(snapshot.items, []);
  t.equal(snapshot.totals[`outcome${SEP}below-threshold`], 40);
  const direct = new Redis(redis.url);
  t.teardown(() => direct.disconnect());
  const texts = await direct.keys('3gs:demand:d:*:text');
  t.same(texts, [], 'no text stored below k');
  for (const c of clients(20, 2)) s.record(asked('sourdough bread starter'), c);
  snapshot = await s.snapshot();
  const query = snapshot.items.find((i) => i.key === `phrase${SEP}sourdough bread starter`);
  t.equal(query?.asks, 60);
  t.ok(query!.clients >= 5 && query!.clients <= 24, `${query!.clients} clients, never more than the 24 who asked`);
});

t.test('bounded in Redis: at most the day\'s capacity of items, the most asked kept', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const s = await store(t, redis.url, { itemsPerDay: 20 });
  // Asked 300 times among about 2,800 items counted: more than total/capacity (140), so Space-Saving must keep it.
  for (const c of clients(30)) for (let i = 0; i < 10; i++) s.record(asked('sourdough bread starter'), c);
  for (let i = 0; i < 500; i++) s.record(asked(`unique${i}word other${i}thing`), `10.9.${i >> 8}.${i & 255}`);
  const snapshot = await s.snapshot();
  const direct = new Redis(redis.url);
  t.teardown(() => direct.disconnect());
  const [sorted] = await direct.keys('3gs:demand:d:*:items');
  t.ok((await direct.zcard(sorted!)) <= 20, 'the sorted set holds at most 20 items');
  t.ok((await direct.keys('3gs:demand:d:*:bits:*')).length <= 40, 'and at most 40 bitmaps (20 counted, at most 20 kept as shown)');
  t.ok(snapshot.items.some((i) => i.key === `phrase${SEP}sourdough bread starter`), 'the phrase 30 clients asked 300 times is kept');
});

t.test('one client cannot push a shown topic out of Redis: items asked by k clients are kept (issue 31, finding 2)', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const s = await store(t, redis.url, { itemsPerDay: 20 });
  for (const c of clients(8)) s.record(asked('sourdough bread starter'), c);
  const shown = (await s.snapshot()).items.map((i) => i.key);
  t.ok(shown.includes(`phrase${SEP}sourdough bread starter`), 'shown once eight clients asked it');
  for (let i = 0; i < 600; i++) s.record(asked(`flood${i}x filler${i}y`), '10.66.0.1');
  const after = (await s.snapshot()).items.map((i) => i.key);
  t.same(after.filter((key) => shown.includes(key)).sort(), [...shown].sort(), 'every item shown before is still shown after 600 new items from one client');
  const direct = new Redis(redis.url);
  t.teardown(() => direct.disconnect());
  const [kept] = await direct.keys('3gs:demand:d:*:kept');
  const [counted] = await direct.keys('3gs:demand:d:*:items');
  t.ok((await direct.zcard(kept!)) <= 20 && (await direct.zcard(counted!)) <= 20, 'both sets stay within the capacity');
});

t.test('after the window, counts are gone from Redis', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  let now = Date.now() - 3 * DAY_MS;
  const s = await store(t, redis.url, { now: () => now, windowDays: 3 });
  for (const c of clients(10)) s.record(asked('sourdough bread starter'), c);
  await s.flush();
  const direct = new Redis(redis.url);
  t.teardown(() => direct.disconnect());
  t.same((await direct.keys('3gs:demand:d:*')).length, 0, 'a day three days old in a 3-day window expired at once');
  now = Date.now();
  for (const c of clients(10)) s.record(asked('sourdough bread starter'), c);
  await s.flush();
  const ttl = await direct.ttl((await direct.keys('3gs:demand:d:*:totals'))[0]!);
  t.ok(ttl > 2 * 86_400 && ttl <= 3 * 86_400, `today's keys expire when today leaves the window (${ttl} s)`);
});

t.test('Redis away: recording never throws, the report route answers 503, and counting resumes by itself', { skip: redisSkip(true) }, async (t) => {
  const redis = await startRedis(t, true);
  const app = await build(t, { redisUrl: redis.url, demandSecret: SECRET, demandToken: 'redis-demand-token-0123456789' });
  const auth = { authorization: 'Bearer redis-demand-token-0123456789' };
  await redis.stop();
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_sources', arguments: { query: 'sourdough bread starter' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } };
  const headers = { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_sources' };
  const res = await app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify(call), remoteAddress: '10.0.0.1' });
  t.equal(res.statusCode, 200, 'a stateless call is answered while Redis is away');
  const down = await app.inject({ method: 'GET', url: '/demand', headers: auth });
  t.equal(down.statusCode, 503);
  t.match(down.json().message, /cannot be read right now/);
  await redis.start();
  let report: { totals: { requests: number } } | undefined;
  // The client reconnects by itself (every 2 s at most): up to 30 s, for a loaded machine.
  for (let i = 0; i < 300 && report === undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify(call), remoteAddress: '10.0.0.2' });
    const r = await app.inject({ method: 'GET', url: '/demand', headers: auth });
    if (r.statusCode === 200 && r.json().totals.requests > 0) report = r.json();
  }
  t.ok(report !== undefined, 'counting again once Redis is back');
});

t.test('an unreachable Redis at start is RedisUnreachable', async (t) => {
  const port = await freePort();
  await t.rejects(RedisDemandStore.connect({ url: `redis://127.0.0.1:${port}`, secret: SECRET, minClients: 5, windowDays: 30, itemsPerDay: 10 }), RedisUnreachable);
});

t.test('a k raised since shows nothing that only reached the old k', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const low = await store(t, redis.url);
  for (const c of clients(8)) low.record(asked('sourdough bread starter'), c);
  t.ok((await low.snapshot()).items.length > 0, 'shown at k = 5');
  const high = await RedisDemandStore.connect({ url: redis.url, secret: SECRET, minClients: 20, windowDays: 30, itemsPerDay: 1000 });
  t.teardown(() => high.close());
  t.same((await high.snapshot()).items, [], 'the same counts at k = 20: nothing');
});

t.test('REDIS_URL without DEMAND_SECRET: counts stay in memory, and the log says so', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const lines: string[] = [];
  const app = await buildApp({ ...testConfig({ redisUrl: redis.url, demandToken: 'redis-demand-token-0123456789' }), logLevel: 'warn' }, { logStream: { write: (line: string) => { lines.push(line); } } });
  t.teardown(() => app.close());
  t.ok(lines.some((l) => /demand counts stay in this process's memory .*REDIS_URL is set but DEMAND_SECRET is not/.test(l)), 'one warning at start');
  const report = (await app.inject({ method: 'GET', url: '/demand', headers: { authorization: 'Bearer redis-demand-token-0123456789' } })).json();
  t.equal(report.store, 'memory');
  const direct = new Redis(redis.url);
  t.teardown(() => direct.disconnect());
  t.same(await direct.keys('3gs:demand:*'), [], 'nothing of the demand signal in Redis');
});

t.test('REDIS_URL with no curator key: replicas would sign with keys of their own, and the log says so (issue 33, item 12)', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const start = async (config: Parameters<typeof testConfig>[0]) => {
    const lines: string[] = [];
    const app = await buildApp({ ...testConfig(config), logLevel: 'warn' }, { logStream: { write: (line: string) => { lines.push(line); } } });
    await app.close();
    return lines.some((l) => /REDIS_URL is set \(replicas share sessions\) but no curator key is: each replica signs with a key of its own/.test(l));
  };
  t.equal(await start({ redisUrl: redis.url, curatorSeed: undefined }), true, 'an ephemeral key with REDIS_URL: warned');
  t.equal(await start({ redisUrl: redis.url }), false, 'a configured key: no warning');
  t.equal(await start({ curatorSeed: undefined }), false, 'no REDIS_URL: one server, no replica warning');
});

t.test('an item shown from Redis says the first and last day it was asked (issue 32)', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const today = Math.floor(Date.now() / DAY_MS);
  let now = Date.now() - 2 * DAY_MS;
  const s = await store(t, redis.url, { now: () => now });
  for (const c of clients(20)) s.record(asked('sourdough bread starter'), c);
  await s.flush();
  now = Date.now();
  s.record(asked('sourdough bread starter'), '10.9.0.1');
  await s.flush();
  const item = (await s.snapshot()).items.find((i) => i.key === `query${SEP}sourdough bread starter`)!;
  t.same([item.firstDay, item.lastDay], [today - 2, today]);
});

t.test('a day over is read from Redis once: later reports add today to it, and drop it when it leaves the window', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  let now = Date.now() - 3 * DAY_MS;
  const s = await store(t, redis.url, { now: () => now, windowDays: 5 });
  for (const c of clients(20)) s.record(asked('sourdough bread starter'), c);
  await s.flush();
  now = Date.now();
  const item = async () => (await s.snapshot()).items.find((i) => i.key === `query${SEP}sourdough bread starter`);
  t.equal((await item())?.asks, 20, 'the day over, read');
  for (const c of clients(6, 3)) s.record(asked('sourdough bread starter'), c);
  t.equal((await item())?.asks, 26, 'today added to the day kept');
  now += 3 * DAY_MS;
  t.equal((await item())?.asks, 6, 'the day kept gone with the window, today still in it');
});

t.test('a day recorded before each item\'s client count was kept is still shown, its clients counted from the bitmaps', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  let now = Date.now() - 3 * DAY_MS;
  const s = await store(t, redis.url, { now: () => now });
  for (const c of clients(20)) s.record(asked('sourdough bread starter'), c);
  await s.flush();
  now = Date.now();
  const direct = new Redis(redis.url);
  t.teardown(() => direct.disconnect());
  const counts = await direct.keys('3gs:demand:d:*:clients');
  t.equal(counts.length, 1);
  await direct.del(counts[0]!);
  const item = (await s.snapshot()).items.find((i) => i.key === `query${SEP}sourdough bread starter`);
  t.equal(item?.asks, 20);
  t.ok(item!.clients >= 5 && item!.clients <= 20, `${item!.clients} clients, from the bitmaps`);
});
