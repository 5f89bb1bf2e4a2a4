import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { Redis } from 'ioredis';
import { SEP } from '../../src/demand/asked.js';
import { ROOT } from '../helpers/build.js';
import { start, type Started } from '../helpers/process.js';
import { redisSkip, startRedis } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const TOKEN = 'e2e-demand-token-0123456789abcdef';
const SECRET = 'e2e-demand-secret-0123456789abcdef-0123456789';
const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'e2e', version: '1' } };
const clients = (n: number, net: number) => Array.from({ length: n }, (_, i) => `10.${net}.${i >> 8}.${i & 255}`);

/** A server process that takes X-Forwarded-For from loopback, so that each request can come from a client of its own. */
function server (env: Record<string, string>): Started {
  return start({ PORT: '0', TRUST_PROXY: '127.0.0.1', DEMAND_TOKEN: TOKEN, DEMAND_SECRET: SECRET, RATE_LIMIT_MAX: '0', ...env });
}

/** get_sources, stateless (2026-07-28), from `client`. */
async function ask (base: string, query: string, client: string): Promise<void> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'get_sources', 'x-forwarded-for': client },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_sources', arguments: { query }, _meta: META } }),
  });
  if (res.status !== 200) throw new Error(`get_sources answered ${res.status}`);
  await res.arrayBuffer();
}

/** The page's search, from `client`. */
async function search (base: string, query: string, client: string): Promise<void> {
  const res = await fetch(`${base}/?q=${encodeURIComponent(query)}`, { headers: { 'x-forwarded-for': client } });
  await res.arrayBuffer();
}

const report = async (base: string) => (await fetch(`${base}/demand`, { headers: { authorization: `Bearer ${TOKEN}` } })).json() as Promise<{ totals: { requests: number } } & Record<string, unknown>>;

/** Every key and value under the demand prefix, and every key at all, as text. */
async function redisDump (url: string): Promise<{ keys: string; demand: string }> {
  const redis = new Redis(url);
  try {
    const keys = await redis.keys('*');
    const values: string[] = [];
    for (const key of keys.filter((k) => k.startsWith('3gs:demand:'))) {
      const type = await redis.type(key);
      if (type === 'string') values.push((await redis.getBuffer(key))!.toString('latin1'));
      else if (type === 'hash') values.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'zset') values.push(JSON.stringify(await redis.zrange(key, 0, -1, 'WITHSCORES')));
      else values.push(`unexpected ${type}`);
    }
    return { keys: keys.join('\n'), demand: `${keys.filter((k) => k.startsWith('3gs:demand:')).join('\n')}\n${values.join('\n')}` };
  } finally {
    redis.disconnect();
  }
}

t.test('privacy: what k - 1 clients asked appears in no output and nowhere in Redis; no address, session id or query as typed is stored', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const s = server({ REDIS_URL: redis.url, DEMAND_PUBLIC: 'true', LOG_LEVEL: 'debug' });
  t.teardown(() => s.kill('SIGTERM'));
  const base = await s.address;
  // A 2025-era session, so that a session id exists to be looked for.
  const init = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-forwarded-for': '10.200.0.1' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } }),
  });
  const session = init.headers.get('mcp-session-id')!;
  t.ok(session, 'a session was opened');
  await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', 'x-forwarded-for': '10.200.0.1' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_sources', arguments: { query: 'Zanzibarite crystal Polishing?' } } }),
  });
  // k - 1 = 4 clients ask about zanzibarite (the session's client among them), through the tool and the page.
  for (const c of clients(2, 1)) await ask(base, 'Zanzibarite crystal Polishing?', c);
  await search(base, 'Zanzibarite crystal Polishing?', '10.1.9.9');
  // 16 clients ask about sourdough.
  for (const c of clients(12, 2)) await ask(base, 'How do I keep a SOURDOUGH starter alive?', c);
  for (const c of clients(4, 3)) await search(base, 'How do I keep a SOURDOUGH starter alive?', c);

  const route = JSON.stringify(await report(base));
  t.match(route, /sourdough/, 'the route reports what 16 clients asked');
  const tokenFile = join(await mkdtemp(join(tmpdir(), '3gs-demand-')), 'token');
  await writeFile(tokenFile, `${TOKEN}\n`);
  const cli = await run(process.execPath, [join(ROOT, 'bin/three-good-sources.mjs'), 'demand', base, '--token-file', tokenFile]);
  t.match(cli.stdout, /Most asked topics nobody here covers:\n {2}1\. "[^"]*(sourdough|starter|alive)/, 'the CLI lists it first');
  const page = await (await fetch(`${base}/`)).text();
  t.match(page, /Asked for, covered by nobody here/);
  t.match(page, /<li>[^<]*(sourdough|starter|alive)[^<]*<\/li>/, 'the public list on the page');
  t.match(page, /demand signal counts what is asked, never who/, 'the page says what is kept');
  const metrics = await (await fetch(`${base}/metrics`)).text();
  await waitFor(async () => (await redisDump(redis.url)).demand.includes('sourdough'));
  const stored = await redisDump(redis.url);
  const outputs = { route, cli: cli.stdout + cli.stderr, page, metrics, logs: s.stderr(), 'Redis keys': stored.keys, 'Redis values': stored.demand };
  for (const [where, text] of Object.entries(outputs)) t.notMatch(text, /zanzibarite|polishing/i, `${where}: nothing of what four clients asked`);
  t.notMatch(s.stderr(), /sourdough/i, 'the logs hold no query words at all, even at debug level');
  t.notMatch(stored.keys, /sourdough/i, 'Redis key names hold no words, shown or not (items are named by a keyed hash)');
  // Item names are keyed hashes: whatever key can be found in Redis, the words of k - 1 clients cannot be looked up by guessing.
  const keysInRedis = ['', ...stored.demand.split('\n')];
  const guessed = ['zanzibarite', 'polishing', 'zanzibarite crystal'].flatMap((w) => [`term${SEP}${w}`, `phrase${SEP}${w}`]);
  const found = keysInRedis.flatMap((key) => guessed.filter((item) => stored.keys.includes(createHmac('sha256', key).update(`item ${item}`).digest('hex').slice(0, 24))));
  t.same(found, [], 'no guessed word matches an item name under any value Redis holds');
  t.ok(stored.keys.includes(createHmac('sha256', SECRET).update(`item term${SEP}zanzibarite`).digest('hex').slice(0, 24)), 'while the item is there, named by the secret Redis never saw (so the test above could see it)');
  t.notMatch(stored.keys, /salt|:key$/m, 'no salt and no key in Redis');
  t.notMatch(stored.demand, /10\.\d+\.\d+\.\d+|127\.0\.0\.1/, 'no client address stored');
  t.notOk(stored.demand.includes(session), 'no session id stored');
  t.notMatch(stored.demand, /How do I keep|SOURDOUGH|\?/, 'no query as typed stored');
});

t.test('two replicas on one Redis count together and report the same; a restart keeps the counts', { skip: redisSkip() }, async (t) => {
  const redis = await startRedis(t);
  const a = server({ REDIS_URL: redis.url });
  const b = server({ REDIS_URL: redis.url });
  t.teardown(() => a.kill('SIGTERM'));
  t.teardown(() => b.kill('SIGTERM'));
  const [baseA, baseB] = [await a.address, await b.address];
  // Ten clients, each asking once on each replica: twenty requests, ten clients.
  for (const c of clients(10, 4)) {
    await ask(baseA, 'sourdough bread starter', c);
    await ask(baseB, 'sourdough bread starter', c);
  }
  await ask(baseA, 'learn rust programming', '10.4.1.1');
  // Each replica adds its counts to Redis every second; a report adds its own first.
  await waitFor(async () => (await report(baseA)).totals.requests === 21 && (await report(baseB)).totals.requests === 21);
  const [ra, rb] = [await report(baseA), await report(baseB)];
  t.same(ra.totals, rb.totals, 'the same totals from either replica');
  t.same(ra.uncovered, rb.uncovered, 'the same topics');
  type Shown = { text: string; clients: number; asks: number };
  const sourdough = (ra.uncovered as (Shown & { related: Shown[] })[]).flatMap((g): Shown[] => [g, ...g.related]).find((x) => x.text === 'sourdough bread starter');
  t.ok(sourdough !== undefined, 'the query is shown');
  t.equal(sourdough!.asks, 20, 'asked twenty times across the two');
  t.ok(sourdough!.clients <= 10, `by at most ten clients, not twenty: a client is the same bucket on both replicas (${sourdough!.clients})`);
  a.kill('SIGTERM');
  b.kill('SIGTERM');
  await Promise.all([a.code, b.code]);
  const again = server({ REDIS_URL: redis.url });
  t.teardown(() => again.kill('SIGTERM'));
  const after = await report(await again.address);
  t.same(after.totals, ra.totals, 'after both restart, the counts are still there');
});
