import type { FastifyPluginAsync } from 'fastify';
import type { Catalog } from '../../src/catalog.js';
import type { SessionStore } from '../../src/sessions/store.js';

export interface HealthOptions {
  readonly catalog: () => Catalog;
  readonly sessions: SessionStore;
  readonly serverVersion: string;
}

/**
 * GET /health: liveness (the process answers; restart it if not). GET /health/ready: readiness
 * (a registry is loaded and the session store answers; send traffic elsewhere if not).
 */
export const health: FastifyPluginAsync<HealthOptions> = async (app, { catalog, sessions, serverVersion }) => {
  // Two versions, named apart: this server's (package.json) and the registry's it serves now.
  app.get('/health', async () => {
    const { registry } = catalog();
    return { status: 'ok', serverVersion, registryVersion: registry.version, categories: Object.keys(registry.categories).length };
  });

  app.get('/health/ready', async (_request, reply) => {
    const { registry, signed } = catalog();
    const reachable = await sessions.ping();
    return reply.code(reachable ? 200 : 503).send({
      status: reachable ? 'ready' : 'unavailable',
      registry: { version: registry.version, sha256: signed.sha256, categories: Object.keys(registry.categories).length },
      sessionStore: { kind: sessions.kind, reachable },
    });
  });
};
