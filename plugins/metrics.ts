import fp from 'fastify-plugin';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Catalog, ReloadOutcome } from '../src/catalog.js';
import { NO_FEDERATION, type FederationView } from '../src/federation/federation.js';
import type { SessionStore } from '../src/sessions/store.js';
import type { ToolResult } from '../src/mcp/tools/tool.js';
import { rpcSummary } from './rpc-summary.js';

/** Label values we accept as they are; anything else a client sends becomes "other", so label sets stay bounded. */
const METHODS = new Set(['initialize', 'ping', 'notifications/initialized', 'tools/list', 'tools/call', 'server/discover', 'subscriptions/listen']);
const TOOLS = new Set(['get_sources', 'get_federated_sources', 'list_categories', 'get_provenance', 'get_endorsements', 'get_history']);
/** Peers come from the curator's endorsements; past this many, per-peer series are not exported. */
const MAX_PEER_SERIES = 1000;

export interface Metrics {
  readonly registry: Registry;
  request(route: string, body: unknown, status: number, seconds: number): void;
  toolResult(tool: string, result: ToolResult): void;
  reloaded(outcome: ReloadOutcome, catalog: Catalog): void;
}

export function createMetrics(sessions: SessionStore, catalog: Catalog, federation: FederationView = NO_FEDERATION): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'threegs_' });
  const requests = new Counter({
    name: 'threegs_mcp_requests_total',
    help: 'Requests to /mcp by JSON-RPC method, tool and HTTP status.',
    labelNames: ['method', 'tool', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'threegs_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route and JSON-RPC method.',
    labelNames: ['route', 'method'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const matches = new Counter({
    name: 'threegs_get_sources_total',
    help: 'get_sources answers by outcome: match or no_match.',
    labelNames: ['outcome'] as const,
    registers: [registry],
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
    async collect() {
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
    collect() {
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
    collect() {
      this.reset();
      for (const p of federation.peers().slice(0, MAX_PEER_SERIES)) if (p.lastSuccess !== undefined) this.set({ peer: p.endorsement.pubkey }, p.lastSuccess / 1000);
    },
  });
  new Gauge({
    name: 'threegs_federation_peer_registry_info',
    help: 'The registry version each endorsed peer serves here (always 1), by peer and version.',
    labelNames: ['peer', 'version'] as const,
    registers: [registry],
    collect() {
      this.reset();
      // A version is a label value: cut to a length any real one fits in.
      for (const p of federation.peers().slice(0, MAX_PEER_SERIES)) if (p.copy !== undefined) this.set({ peer: p.endorsement.pubkey, version: p.copy.version.slice(0, 64) }, 1);
    },
  });
  const showRegistry = (c: Catalog) => {
    info.reset();
    info.set({ version: c.registry.version, sha256: c.signed.sha256 }, 1);
  };
  showRegistry(catalog);
  for (const outcome of ['match', 'no_match']) matches.inc({ outcome }, 0);
  for (const result of ['success', 'failure']) reloads.inc({ result }, 0);

  return {
    registry,
    request(route, body, status, seconds) {
      const { rpcMethod, tool } = route === '/mcp' ? rpcSummary(body) : {};
      const method = rpcMethod === undefined ? '' : METHODS.has(rpcMethod) ? rpcMethod : 'other';
      duration.observe({ route, method }, seconds);
      if (route === '/mcp') {
        requests.inc({ method, tool: tool === undefined ? '' : TOOLS.has(tool) ? tool : 'other', status: String(status) });
      }
    },
    toolResult(tool, result) {
      if (tool === 'get_sources') matches.inc({ outcome: result.isError ? 'no_match' : 'match' });
    },
    reloaded(outcome, current) {
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
  { name: 'three-good-sources-metrics' },
);
