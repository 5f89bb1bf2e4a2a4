import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyError, type FastifyInstance } from 'fastify';
import pino from 'pino';
import { CatalogHolder, prepareCatalog, type ReloadOutcome } from '../src/catalog.js';
import type { Config } from '../src/config.js';
import { createMcpHandler } from '../src/mcp/dispatch.js';
import { RedisSessionStore } from '../src/mcp/redis-sessions.js';
import { MemorySessionStore, type SessionStore } from '../src/mcp/sessions.js';
import { packageVersion } from '../src/project.js';
import { generateKey, keyFromSeed } from '../src/provenance/keys.js';
import { health } from './health.js';
import { mcpEndpoint } from './mcp-endpoint.js';
import { createMetrics, metricsPlugin } from './metrics.js';
import { originPolicy } from './origin-policy.js';
import { registryRoutes } from './registry-routes.js';
import { requestLog } from './request-log.js';

export const BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  /** Where logs go; stderr unless a test says otherwise. */
  readonly logStream?: pino.DestinationStream;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Re-reads, re-validates and re-signs the registry; swaps it in only if all of that worked. */
    reloadRegistry(): Promise<ReloadOutcome>;
  }
}

function sessionStore(config: Config): Promise<SessionStore> | SessionStore {
  const limits = { ttlMs: config.sessionTtlMs, maxSessions: config.maxSessions };
  return config.redisUrl === undefined
    ? new MemorySessionStore(limits)
    : RedisSessionStore.connect({ url: config.redisUrl, ...limits });
}

/**
 * Builds the whole app: the one way in, for the server entry and for the tests.
 * Throws RegistryError (bad registry) or RedisUnreachable (REDIS_URL set, Redis down).
 */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const key = config.curatorSeed === undefined ? generateKey(true).key : keyFromSeed(config.curatorSeed);
  const load = () => prepareCatalog(config.registryPath, key, config.matchThreshold);
  const holder = new CatalogHolder(await load(), load);
  const catalog = () => holder.current();
  const serverVersion = packageVersion();
  const sessions = await sessionStore(config);
  const metrics = createMetrics(sessions, catalog());

  const app = Fastify({
    // Asynchronous writes: under load lines queue behind the write in flight and go out together
    // instead of one blocking write per request; pino flushes what is left when the process exits.
    logger: { level: config.logLevel, stream: options.logStream ?? pino.destination({ dest: 2, sync: false }) },
    genReqId: () => randomUUID(),
    // Our request-log plugin writes the one line per request instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    // Fastify's defaults would turn "id": 1 into "1" and silently drop unknown keys.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false } },
    connectionTimeout: config.connectionTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    ...(config.trustProxy.length > 0 ? { trustProxy: [...config.trustProxy] } : {}),
  });

  // Set before any plugin so that every route inherits it: no stack trace or detail on the wire.
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.code(status).send({ statusCode: status, error: status >= 500 ? 'Internal Server Error' : error.name, message: status >= 500 ? 'Internal Server Error' : error.message });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `No route for ${request.method} ${request.url.split('?')[0]}` }),
  );
  app.addHook('onClose', async () => sessions.close());
  if (key.ephemeral) {
    app.log.warn(
      { publicKey: key.publicKey },
      'NO CURATOR KEY CONFIGURED: signing the registry with an ephemeral key; signatures and the public key will change on restart. Set CURATOR_SECRET_KEY or CURATOR_KEY_FILE (npx three-good-sources keygen makes one).',
    );
  }

  app.decorate('reloadRegistry', async () => {
    const outcome = await holder.reload();
    metrics.reloaded(outcome, holder.current());
    if (outcome.ok) app.log.info({ version: outcome.version, sha256: outcome.sha256, categories: outcome.categories }, 'registry reloaded');
    else app.log.error({ reason: outcome.error }, 'registry reload failed; still serving the previous registry');
    return outcome;
  });

  await app.register(requestLog);
  await app.register(metricsPlugin, { metrics });
  await app.register(originPolicy, { allowedOrigins: config.allowedOrigins, listenHost: config.host });
  await app.register(health, { catalog, sessions, serverVersion });
  await app.register(registryRoutes, { catalog });
  await app.register(mcpEndpoint, {
    handler: createMcpHandler({ catalog, sessions, serverVersion, onToolResult: metrics.toolResult }),
    protection: config,
  });
  return app;
}
