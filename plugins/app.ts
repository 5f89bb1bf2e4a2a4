import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyError, type FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Config } from '../src/config.js';
import { prepareCatalog, type Catalog } from '../src/catalog.js';
import { generateKey, keyFromSeed } from '../src/provenance/keys.js';
import { createMcpHandler } from '../src/mcp/dispatch.js';
import { MemorySessionStore } from '../src/mcp/sessions.js';
import { packageVersion } from '../src/project.js';
import { health } from './health.js';
import { mcpEndpoint } from './mcp-endpoint.js';
import { originPolicy } from './origin-policy.js';
import { registryRoutes } from './registry-routes.js';
import { requestLog } from './request-log.js';

export const BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  /** Where logs go; stderr unless a test says otherwise. */
  readonly logStream?: pino.DestinationStream;
}

/** Builds the whole app: the one way in, for the server entry and for the tests. Throws RegistryError. */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const key = config.curatorSeed === undefined ? generateKey(true).key : keyFromSeed(config.curatorSeed);
  const current: Catalog = await prepareCatalog(config.registryPath, key, config.matchThreshold);
  const catalog = (): Catalog => current;
  const serverVersion = packageVersion();
  const sessions = new MemorySessionStore({ ttlMs: config.sessionTtlMs, maxSessions: config.maxSessions });

  const app = Fastify({
    logger: { level: config.logLevel, stream: options.logStream ?? pino.destination(2) },
    genReqId: () => randomUUID(),
    // Our request-log plugin writes the one line per request instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    // Fastify's defaults would turn "id": 1 into "1" and silently drop unknown keys.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false } },
    connectionTimeout: 30_000,
    requestTimeout: 30_000,
    keepAliveTimeout: 72_000,
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

  await app.register(requestLog);
  await app.register(originPolicy, { allowedOrigins: config.allowedOrigins, listenHost: config.host });
  await app.register(health, { catalog, serverVersion });
  await app.register(registryRoutes, { catalog });
  await app.register(mcpEndpoint, { handler: createMcpHandler({ catalog, sessions, serverVersion }) });
  return app;
}
