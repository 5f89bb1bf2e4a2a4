import t from 'tap';
import { Histogram, Registry } from 'prom-client';
import { createMetrics } from '../../../plugins/infrastructure/metrics.js';
import { DEFAULT_THRESHOLD } from '../../../src/matcher/matcher.js';
import { prepareCatalog } from '../../../src/catalog.js';
import { MemorySessionStore } from '../../../src/sessions/memory.js';
import { SHIPPED_REGISTRY, serverSigning } from '../../helpers/build.js';

/** The lines of one metric family in Prometheus text. */
const family = (text: string, name: string) => text.split('\n').filter((line) => line.startsWith(name) || line.includes(` ${name} `));

t.test('the request-duration histogram, counted in plain numbers, writes the same lines as prom-client\'s own Histogram', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), DEFAULT_THRESHOLD);
  const sessions = new MemorySessionStore({ ttlMs: 60_000, maxSessions: 10 });
  t.teardown(() => sessions.close());
  const metrics = createMetrics(sessions, catalog);
  const referenceRegistry = new Registry();
  const reference = new Histogram({
    name: 'threegs_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route and JSON-RPC method.',
    labelNames: ['route', 'method'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [referenceRegistry],
  });
  const seen: [string, unknown, number][] = [
    ['/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_sources' } }, 0.0004],
    ['/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_sources' } }, 0.003],
    ['/mcp', { jsonrpc: '2.0', id: 3, method: 'initialize' }, 0.0005],
    ['/mcp', { jsonrpc: '2.0', id: 4, method: 'no/such' }, 2],
    ['/health', undefined, 0.02],
  ];
  for (const [route, body, seconds] of seen) {
    metrics.request(route, body, 200, seconds);
    const method = route === '/mcp' ? ((body as { method: string }).method === 'no/such' ? 'other' : (body as { method: string }).method) : '';
    reference.observe({ route, method }, seconds);
  }
  const ours = family(await metrics.registry.metrics(), 'threegs_http_request_duration_seconds');
  const theirs = family(await referenceRegistry.metrics(), 'threegs_http_request_duration_seconds');
  t.ok(ours.length > 20, `${ours.length} lines`);
  t.same(ours, theirs);
  const json = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'threegs_http_request_duration_seconds');
  t.match(json, { type: 'histogram' }, 'the registry as JSON holds it too');
  t.equal(
    (json?.values as { metricName?: string; labels: Record<string, unknown>; value: number }[] | undefined)?.find(
      (v) => v.metricName === 'threegs_http_request_duration_seconds_count' && v.labels.route === '/mcp' && v.labels.method === 'tools/call'
    )?.value,
    2,
    'with the label sets spread'
  );
  metrics.registry.resetMetrics();
  t.same(family(await metrics.registry.metrics(), 'threegs_http_request_duration_seconds').filter((line) => !line.startsWith('#')), [], 'and a reset of the registry empties it');
});
