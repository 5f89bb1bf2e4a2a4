import type { FastifyPluginAsync } from 'fastify';
import type { Catalog, CatalogHolder, ReloadOutcome } from '../src/catalog.js';
import { categoryNames } from '../src/catalog.js';
import type { Config } from '../src/config.js';
import type { DemandSignal } from '../src/demand/signal.js';
import type { Federation } from '../src/federation/federation.js';
import { createMcpHandler } from '../src/mcp/dispatch.js';
import { registryName } from '../src/project.js';
import type { SessionStore } from '../src/sessions/store.js';
import { metricsPlugin, type Metrics } from './infrastructure/metrics.js';
import { originPolicy } from './infrastructure/origin-policy.js';
import { requestLog } from './infrastructure/request-log.js';
import { demandRoutes } from './routes/demand-routes.js';
import { discoveryRoutes } from './routes/discovery-routes.js';
import { federationRoutes } from './routes/federation-routes.js';
import { health } from './routes/health.js';
import { mcpEndpoint } from './routes/mcp-endpoint.js';
import { pageRoutes } from './routes/page-routes.js';
import { registryRoutes } from './routes/registry-routes.js';
import { handleError, plainError } from './support/http-errors.js';
import { protect } from './support/load-protection.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Re-reads, re-validates and re-signs the registry; swaps it in only if all of that worked. */
    reloadRegistry(): Promise<ReloadOutcome>;
  }
}

/** What the app serves, built once by `buildApp` and handed to the app plugin. */
export interface AppParts {
  readonly config: Config;
  readonly holder: CatalogHolder;
  readonly sessions: SessionStore;
  readonly metrics: Metrics;
  readonly serverVersion: string;
  readonly federation: Federation;
  readonly demand: DemandSignal;
}

/**
 * The app as a plugin (as in fastify/demo): error handling, the routes and their hooks, and the
 * reload decorator. Data flows one way: plugin, protocol handler, tools, matcher and registry.
 */
export const app: FastifyPluginAsync<AppParts> = async (instance, { config, holder, sessions, metrics, serverVersion, federation, demand }) => {
  const catalog = (): Catalog => holder.current();
  // Set before any plugin so that every route inherits it: no stack trace or detail on the wire.
  instance.setErrorHandler(handleError);
  instance.setNotFoundHandler((request, reply) =>
    reply.code(404).send(plainError(404, `No route for ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}`))
  );
  instance.addHook('onClose', async () => {
    federation.stop();
    await demand.close();
    await sessions.close();
  });
  // Peers are fetched once the server answers, in the background: never in the way of start-up.
  instance.addHook('onListen', (done) => {
    federation.start();
    done();
  });

  instance.decorate('reloadRegistry', async () => {
    const outcome = await holder.reload();
    if (outcome.ok) {
      federation.setPeers(holder.current().registry.endorsements);
      // A peer endorsed again finds its disk copy (disk only; peers are fetched by the schedule).
      await federation.loadCache();
    }
    metrics.reloaded(outcome, holder.current());
    if (outcome.ok) instance.log.info({ version: outcome.version, sha256: outcome.sha256, categories: outcome.categories }, 'registry reloaded');
    else instance.log.error({ reason: outcome.error }, 'registry reload failed; still serving the previous registry');
    return outcome;
  });

  await instance.register(requestLog);
  await instance.register(metricsPlugin, { metrics });
  await instance.register(originPolicy, { allowedOrigins: config.allowedOrigins, allowedHosts: config.allowedHosts, listenHost: config.host });
  await instance.register(health, { catalog, sessions, serverVersion });
  const publicUrl = { publicUrl: config.publicUrl, allowedHosts: config.allowedHosts };
  await instance.register(discoveryRoutes, { catalog, serverVersion, registryName: registryName(), publicUrl });
  await instance.register(registryRoutes, { catalog });
  await instance.register(federationRoutes, { federation });
  const demandOnPage = { signal: demand, public: config.demandPublic, minClients: config.demandMinClients, windowDays: config.demandWindowDays };
  const handler = createMcpHandler({ catalog, sessions, serverVersion, federation, demand, onToolResult: metrics.toolResult });
  // One rate-limit budget and one load monitor per client for every route that runs the matcher
  // or reads the demand counts: the page, /demand and /mcp share them, so a client spends one
  // budget, not three. Health, metrics and the JSON routes stay outside, as before.
  await instance.register(async (limited) => {
    await protect(limited, config);
    await limited.register(pageRoutes, { catalog, federation, publicUrl, demand: demandOnPage });
    // The curator's report: the route exists only with a token to guard it.
    if (config.demandToken !== undefined) await limited.register(demandRoutes, { demand, token: config.demandToken, names: () => categoryNames(catalog()) });
    await limited.register(mcpEndpoint, { handler });
  });
};
