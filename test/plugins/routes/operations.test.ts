import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CatalogHolder, prepareCatalog } from '../../../src/catalog.js';
import { keyFromSeed } from '../../../src/provenance/keys.js';
import { SHIPPED_REGISTRY, TEST_SEED, build, callTool, openSession, rpc, serverSigning } from '../../helpers/build.js';
import { TOOL_NAMES } from '../../../src/mcp/tools/toolbox.js';
import { waitFor } from '../../helpers/wait.js';

async function registryCopy (): Promise<{ file: string; data: any; write: (d: unknown) => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), '3gs-reload-'));
  const file = join(dir, 'registry.json');
  const data = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8'));
  await writeFile(file, JSON.stringify(data));
  return { file, data, write: (d) => writeFile(file, typeof d === 'string' ? d : JSON.stringify(d)) };
}

const metricValue = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

t.test('reload swaps in a new registry, re-signed; a bad one leaves the old in place', async (t) => {
  const { file, data, write } = await registryCopy();
  const app = await build(t, { registryPath: file });
  const first = (await app.inject({ method: 'GET', url: '/registry/signature' })).json();
  // Answers are remembered per registry: ask before the reload so that a stale answer would show.
  const before = await openSession(app);
  t.match((await callTool(app, before, 'get_sources', { query: 'learn rust' })).json.result?.content[0]?.text, /Registry version: 1\.0\.0/);
  t.match((await callTool(app, before, 'list_categories', {})).json.result?.content[0]?.text, /registry version 1\.0\.0/);
  t.match((await callTool(app, before, 'get_provenance', {})).json.result?.content[0]?.text, new RegExp(`\\(RFC 8785\\): ${first.sha256}`));

  const next = structuredClone(data);
  next.version = '1.1.0';
  next.categories['rust-learning'].description = 'Learning Rust, reviewed again.';
  await write(next);
  const ok = await app.reloadRegistry();
  t.same({ ok: ok.ok, version: ok.ok && ok.version }, { ok: true, version: '1.1.0' });
  const second = (await app.inject({ method: 'GET', url: '/registry/signature' })).json();
  t.equal(second.version, '1.1.0');
  t.not(second.sha256, first.sha256, 're-signed');
  t.equal(second.publicKey, first.publicKey);
  const session = await openSession(app);
  t.match((await callTool(app, session, 'get_sources', { query: 'learn rust' })).json.result?.content[0]?.text, /Learning Rust, reviewed again\./);
  t.match((await callTool(app, before, 'get_sources', { query: 'learn rust' })).json.result?.content[0]?.text, /Registry version: 1\.1\.0/, 'a remembered answer is not served after a reload');
  t.match((await callTool(app, before, 'list_categories', {})).json.result?.content[0]?.text, /registry version 1\.1\.0/);
  t.match((await callTool(app, before, 'get_provenance', {})).json.result?.content[0]?.text, new RegExp(`\\(RFC 8785\\): ${second.sha256}`));

  const broken = structuredClone(next);
  broken.version = '9.9.9';
  broken.categories['rust-learning'].sources.pop();
  await write(broken);
  const failed = await app.reloadRegistry();
  t.equal(failed.ok, false);
  t.match(!failed.ok && failed.error, /categories\.rust-learning\.sources: must have exactly 3 items/);
  t.equal((await app.inject({ method: 'GET', url: '/registry/signature' })).json().version, '1.1.0', 'still the previous registry');
  await write('{ not json');
  t.equal((await app.reloadRegistry()).ok, false, 'a half-written file is refused too');

  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  t.equal(metricValue(metrics, 'threegs_registry_reloads_total{result="success"}'), 1);
  t.equal(metricValue(metrics, 'threegs_registry_reloads_total{result="failure"}'), 2);
  t.match(metrics, new RegExp(`threegs_registry_info\\{version="1\\.1\\.0",sha256="${second.sha256}"\\} 1`));
});

t.test('a request holding the old catalog finishes on it; reloads run one at a time', async (t) => {
  const { file, data, write } = await registryCopy();
  const key = keyFromSeed(TEST_SEED);
  const load = () => prepareCatalog(file, serverSigning(key), 0.4);
  const holder = new CatalogHolder(await load(), load);
  const inFlight = holder.current();
  await write({ ...data, version: '2.0.0' });
  const [a, b] = await Promise.all([holder.reload(), holder.reload()]);
  t.ok(a.ok && b.ok);
  t.equal(holder.current().registry.version, '2.0.0');
  t.equal(inFlight.registry.version, '1.0.0', 'the catalog a request already holds is untouched');
  t.ok(Object.isFrozen(inFlight.registry));
});

t.test('two quick reloads never leave the older registry in place, and never load at the same time', async (t) => {
  const { file, data, write } = await registryCopy();
  const key = keyFromSeed(TEST_SEED);
  let loading = 0;
  let mostAtOnce = 0;
  let calls = 0;
  // The first reload reads version 2 and is slow (a big file, a slow disk); the curator has
  // already written version 3 and sent a second SIGHUP, whose reload is quick.
  const load = async () => {
    const call = ++calls;
    loading++;
    mostAtOnce = Math.max(mostAtOnce, loading);
    try {
      const catalog = await prepareCatalog(file, serverSigning(key), 0.4);
      if (call === 2) await new Promise((resolve) => setTimeout(resolve, 100));
      return catalog;
    } finally {
      loading--;
    }
  };
  const holder = new CatalogHolder(await load(), load);
  await write({ ...data, version: '2.0.0' });
  const first = holder.reload();
  await new Promise((resolve) => setTimeout(resolve, 10));
  await write({ ...data, version: '3.0.0' });
  const second = holder.reload();
  await Promise.all([first, second]);
  t.equal(mostAtOnce, 1, 'one load at a time');
  t.equal(holder.current().registry.version, '3.0.0', 'the last file written is the one served');
});

t.test('rate limiting on /mcp answers 429 in JSON-RPC with Retry-After; health and metrics are exempt', async (t) => {
  const app = await build(t, { rateLimitMax: 3, rateLimitWindowMs: 60_000 });
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  for (let i = 0; i < 3; i++) t.equal((await rpc(app, ping)).statusCode, 200, `request ${i + 1}`);
  const limited = await rpc(app, ping);
  t.equal(limited.statusCode, 429);
  t.ok(Number(limited.headers['retry-after']) > 0, `Retry-After: ${limited.headers['retry-after']}`);
  t.equal(limited.json().error.code, -31429);
  t.match(limited.json().error.message, /^Too many requests: at most 3 per 1 minute; retry after \d+ s$/);
  t.equal((await rpc(app, ping, { 'x-forwarded-for': '203.0.113.9' })).statusCode, 429, 'X-Forwarded-For is not trusted without TRUST_PROXY');
  for (let i = 0; i < 5; i++) {
    t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 200);
  }
});

t.test('behind a trusted proxy the limit is per client address', async (t) => {
  const app = await build(t, { rateLimitMax: 1, trustProxy: ['127.0.0.1'] });
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  t.equal((await rpc(app, ping, { 'x-forwarded-for': '203.0.113.1' })).statusCode, 200);
  t.equal((await rpc(app, ping, { 'x-forwarded-for': '203.0.113.1' })).statusCode, 429, 'the same client again');
  t.equal((await rpc(app, ping, { 'x-forwarded-for': '203.0.113.2' })).statusCode, 200, 'another client');
});

t.test('under pressure, /mcp sheds load with 503 and Retry-After; health stays up', async (t) => {
  const app = await build(t, { maxHeapUsedBytes: 1 });
  await app.ready();
  // Until the first sample is taken (about a second; longer on a loaded machine).
  let shed = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'ping' });
  await waitFor(async () => (shed = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'ping' })).statusCode === 503);
  t.equal(shed.statusCode, 503);
  t.equal(shed.headers['retry-after'], '5');
  t.same(shed.json(), { jsonrpc: '2.0', error: { code: -32603, message: 'Service unavailable: the server is overloaded; retry shortly' } });
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
});

t.test('GET /metrics labels every tool the toolbox lists by its own name, and a name it does not list as "other"', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const listed = (await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': session })).json().result.tools as { name: string }[];
  t.equal(listed.length, TOOL_NAMES.size, 'the metrics know exactly the tools listed');
  for (const { name } of listed) await callTool(app, session, name, name === 'get_sources' || name === 'get_federated_sources' ? { query: 'learn rust' } : {});
  await callTool(app, session, 'get_weather', {});
  const m = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  for (const { name } of listed) t.ok((metricValue(m, `threegs_mcp_requests_total{method="tools/call",tool="${name}",status="200"}`) ?? 0) >= 1, name);
  t.notMatch(m, /tool="get_weather"/, 'an unknown name is never a label');
  t.match(m, /threegs_mcp_requests_total\{method="tools\/call",tool="other",status="200"\} 1/);
});

t.test('GET /metrics: Prometheus text with requests, latency, sessions, match outcomes and the registry', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  await callTool(app, session, 'get_sources', { query: 'learn rust programming' });
  await callTool(app, session, 'get_sources', { query: 'quantum physics supercollider' });
  await callTool(app, session, 'list_categories');
  await rpc(app, { jsonrpc: '2.0', id: 1, method: 'made/up' }, { 'mcp-session-id': session });
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  const m = res.body;
  t.equal(metricValue(m, 'threegs_mcp_requests_total{method="initialize",tool="",status="200"}'), 1);
  t.equal(metricValue(m, 'threegs_mcp_requests_total{method="tools/call",tool="get_sources",status="200"}'), 2);
  t.equal(metricValue(m, 'threegs_mcp_requests_total{method="tools/call",tool="list_categories",status="200"}'), 1);
  t.equal(metricValue(m, 'threegs_mcp_requests_total{method="other",tool="",status="200"}'), 1, 'unknown methods share one label');
  t.equal(metricValue(m, 'threegs_get_sources_total{outcome="match"}'), 1);
  t.equal(metricValue(m, 'threegs_get_sources_total{outcome="no_match"}'), 1);
  t.equal(metricValue(m, 'threegs_active_sessions{store="memory"}'), 1);
  t.equal(metricValue(m, 'threegs_registry_reloads_total{result="failure"}'), 0);
  t.match(m, /threegs_registry_info\{version="1\.0\.0",sha256="[0-9a-f]{64}"\} 1/);
  t.match(m, /threegs_http_request_duration_seconds_bucket\{le="0\.005",route="\/mcp",method="tools\/call"\} \d+/);
  t.match(m, /threegs_process_resident_memory_bytes \d+/, 'process metrics');
});
