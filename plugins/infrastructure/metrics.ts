import fp from 'fastify-plugin';
import { Counter, Gauge, Registry, collectDefaultMetrics, type Histogram } from 'prom-client';
import type { Catalog, ReloadOutcome } from '../../src/catalog.js';
import { NO_FEDERATION, type FederationView } from '../../src/federation/federation.js';
import type { SessionStore } from '../../src/sessions/store.js';
import type { ToolResult } from '../../src/mcp/tools/tool.js';
import { TOOL_NAMES } from '../../src/mcp/tools/toolbox.js';
import { rpcSummary } from '../../src/mcp/rpc-summary.js';

/** Label values we accept as they are; anything else a client sends becomes "other", so label sets stay bounded. */
const METHODS = new Set(['initialize', 'ping', 'notifications/initialized', 'tools/list', 'tools/call', 'server/discover', 'subscriptions/listen']);
/** Peers come from the curator's endorsements; past this many, per-peer series are not exported. */
const MAX_PEER_SERIES = 1000;

/**
 * Per-request counts are kept in plain numbers and handed to prom-client only when /metrics is
 * scraped: prom-client validates and hashes the label set on every inc() and observe(), even on a
 * child bound with labels(), which cost about 3 µs a request in a profile of the sources
 * benchmark. Label sets are bounded (the maps above), so these maps are too.
 */
class Tally<L extends string> {
  readonly counts = new Map<string, { labels: Record<L, string>; n: number }>();
  add (key: string, labels: () => Record<L, string>, n = 1): void {
    const entry = this.counts.get(key);
    if (entry !== undefined) entry.n += n;
    else this.counts.set(key, { labels: labels(), n });
  }
}

/**
 * A histogram counted here in plain numbers per label set, exported in prom-client's histogram
 * format (the same lines its Histogram writes). Registered with the registry as prom-client's own
 * metrics are: the registry reads name, help, type and getForPromString()/get().
 */
class CountedHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly bounds: readonly number[];
  private readonly series = new Map<string, { labels: Record<L, string>; buckets: number[]; sum: number; count: number }>();

  constructor (
    readonly name: string,
    readonly help: string,
    buckets: readonly number[],
    registry: Registry
  ) {
    this.bounds = [...buckets].sort((a, b) => a - b);
    // prom-client types registerMetric for its own classes only; at run time it takes any metric with this shape.
    registry.registerMetric(this as unknown as Histogram<L>);
  }

  count (key: string, labels: () => Record<L, string>, value: number): void {
    let s = this.series.get(key);
    if (s === undefined) {
      s = { labels: labels(), buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    const i = this.bounds.findIndex((bound) => value <= bound);
    if (i >= 0) s.buckets[i]! += 1;
    s.sum += value;
    s.count += 1;
  }

  reset (): void {
    this.series.clear();
  }

  /** Cumulative buckets, +Inf, sum and count per label set, the bucket bound first among the labels. */
  async getForPromString () {
    const values: { labels: Record<string, string | number>; sharedLabels: Record<L, string>; value: number; metricName: string }[] = [];
    for (const { labels, buckets, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += buckets[i]!;
        values.push({ labels: { le }, sharedLabels: labels, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: `${this.name}_bucket` });
      values.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** The same values with the label sets spread, as prom-client's get() gives them (for getMetricsAsJSON). */
  async get () {
    const data = await this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({ labels: { ...sharedLabels, ...labels }, value, metricName })),
    };
  }
}

export interface Metrics {
  readonly registry: Registry;
  request(route: string, body: unknown, status: number, seconds: number): void;
  toolResult(tool: string, result: ToolResult): void;
  reloaded(outcome: ReloadOutcome, catalog: Catalog): void;
}

/* eslint-disable no-new -- a prom-client metric registers itself with the registry it is given */
export function createMetrics (sessions: SessionStore, catalog: Catalog, federation: FederationView = NO_FEDERATION): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'threegs_' });
  const requestCounts = new Tally<'method' | 'tool' | 'status'>();
  new Counter({
    name: 'threegs_mcp_requests_total',
    help: 'Requests to /mcp by JSON-RPC method, tool and HTTP status.',
    labelNames: ['method', 'tool', 'status'] as const,
    registers: [registry],
    collect () {
      this.reset();
      for (const { labels, n } of requestCounts.counts.values()) this.inc(labels, n);
    },
  });
  const duration = new CountedHistogram<'route' | 'method'>(
    'threegs_http_request_duration_seconds',
    'Time to answer an HTTP request, by route and JSON-RPC method.',
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registry
  );
  const matchCounts = { match: 0, no_match: 0 };
  new Counter({
    name: 'threegs_get_sources_total',
    help: 'get_sources answers by outcome: match or no_match.',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect () {
      this.reset();
      for (const outcome of ['match', 'no_match'] as const) this.inc({ outcome }, matchCounts[outcome]);
    },
  });
  const reloads = new Counter({
    name: 'threegs_registry_reloads_total',
    help: 'Registry reloads (SIGHUP) by result: success or failure.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const info = new Gauge({
    name: 'threegs_registry_info',
    help: 'The registry being served (always 1), labelled with its version and SHA-256.',
    labelNames: ['version', 'sha256'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'threegs_active_sessions',
    help: 'Live 2025-era sessions in the session store.',
    labelNames: ['store'] as const,
    registers: [registry],
    async collect () {
      // A store that cannot be reached reports nothing rather than a wrong number.
      this.reset();
      this.set({ store: sessions.kind }, await sessions.size().catch(() => Number.NaN));
    },
  });
  // Per peer, labelled by its public key (the endorsement's, so bounded by the registry), read when scraped.
  new Gauge({
    name: 'threegs_federation_peer_state',
    help: 'Each endorsed peer\'s state: 1 for the state it is in (fresh, stale or unavailable), 0 for the others.',
    labelNames: ['peer', 'state'] as const,
    registers: [registry],
    collect () {
      this.reset();
      for (const p of federation.peers().slice(0, MAX_PEER_SERIES)) {
        for (const state of ['fresh', 'stale', 'unavailable'] as const) this.set({ peer: p.endorsement.pubkey, state }, p.state === state ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'threegs_federation_peer_last_success_timestamp_seconds',
    help: 'When each endorsed peer\'s registry was last fetched and verified (absent: never).',
    labelNames: ['peer'] as const,
    registers: [registry],
    collect () {
      this.reset();
      for (const p of federation.peers().slice(0, MAX_PEER_SERIES)) {
        if (p.lastSuccess !== undefined) this.set({ peer: p.endorsement.pubkey }, p.lastSuccess / 1000);
      }
    },
  });
  new Gauge({
    name: 'threegs_federation_peer_registry_info',
    help: 'The registry version each endorsed peer serves here (always 1), by peer and version.',
    labelNames: ['peer', 'version'] as const,
    registers: [registry],
    collect () {
      this.reset();
      // A version is a label value: cut to a length any real one fits in.
      for (const p of federation.peers().slice(0, MAX_PEER_SERIES)) {
        if (p.copy !== undefined) this.set({ peer: p.endorsement.pubkey, version: p.copy.version.slice(0, 64) }, 1);
      }
    },
  });
  const showRegistry = (c: Catalog) => {
    info.reset();
    info.set({ version: c.registry.version, sha256: c.signed.sha256 }, 1);
  };
  showRegistry(catalog);
  for (const result of ['success', 'failure']) reloads.inc({ result }, 0);

  return {
    registry,
    request (route, body, status, seconds) {
      const { rpcMethod, tool } = route === '/mcp' ? rpcSummary(body) : {};
      const method = rpcMethod === undefined ? '' : METHODS.has(rpcMethod) ? rpcMethod : 'other';
      // Keys of bounded parts only: the route is Fastify's pattern, method and tool are from the sets above.
      duration.count(`${route} ${method}`, () => ({ route, method }), seconds);
      if (route === '/mcp') {
        const toolLabel = tool === undefined ? '' : TOOL_NAMES.has(tool) ? tool : 'other';
        requestCounts.add(`${method} ${toolLabel} ${status}`, () => ({ method, tool: toolLabel, status: String(status) }));
      }
    },
    toolResult (tool, result) {
      if (tool === 'get_sources') matchCounts[result.isError ? 'no_match' : 'match']++;
    },
    reloaded (outcome, current) {
      reloads.inc({ result: outcome.ok ? 'success' : 'failure' });
      showRegistry(current);
    },
  };
}

/** GET /metrics (Prometheus text format) and the per-request counters. */
export const metricsPlugin = fp<{ metrics: Metrics }>(
  async (app, { metrics }) => {
    app.addHook('onResponse', (request, reply, done) => {
      metrics.request(request.routeOptions.url ?? 'unmatched', request.body, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
    app.get('/metrics', async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
  },
  { name: 'three-good-sources-metrics' }
);
