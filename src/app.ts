import { randomUUID } from 'node:crypto';
import type { ServerOptions } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import pino from 'pino';
import { app } from '../plugins/app.js';
import { createMetrics } from '../plugins/infrastructure/metrics.js';
import { failureOf, sendFailure } from '../plugins/support/http-errors.js';
import { CatalogHolder, prepareCatalog, type Catalog } from './catalog.js';
import type { Config } from './config.js';
import { Federation, type PeerEvent } from './federation/federation.js';
import { BODY_LIMIT_BYTES } from './mcp/envelope.js';
import { packageVersion } from './project.js';
import { SIGNING_IN_LOG } from './provenance/facts.js';
import { chooseSigning, signingKey } from './provenance/signing.js';
import { MemorySessionStore } from './sessions/memory.js';
import { RedisSessionStore, type AvailabilityEvent } from './sessions/redis.js';
import type { SessionStore } from './sessions/store.js';
import { createDemandSignal } from './demand/signal.js';
import { loadWordVectors } from './semantic/word-vectors.js';

export interface AppOptions {
  /** Where logs go; stderr unless a test says otherwise. */
  readonly logStream?: pino.DestinationStream;
}

function sessionStore (config: Config, log: () => FastifyBaseLogger | undefined): Promise<SessionStore> | SessionStore {
  const limits = { ttlMs: config.sessionTtlMs, maxSessions: config.maxSessions };
  // An operator at LOG_LEVEL=warn must see an outage begin and end: one line each, not one per retry.
  const onAvailability = (event: AvailabilityEvent) =>
    event.available
      ? log()?.warn('Redis session store is back: sessions work again')
      : log()?.error({ reason: event.reason }, 'Redis session store lost: requests that need a session get 503 until it is back');
  return config.redisUrl === undefined
    ? new MemorySessionStore(limits)
    : RedisSessionStore.connect({ url: config.redisUrl, ...limits, onAvailability });
}

/** One line per peer event: a refusal or failure names the peer and the reason. */
function federationLog (log: FastifyBaseLogger | undefined, event: PeerEvent): void {
  const peer = { name: event.peer.name, pubkey: event.peer.pubkey, url: event.peer.url };
  if (event.kind === 'updated') log?.info({ peer, version: event.version }, 'peer registry verified and in use');
  else {
    // Say what is so: the last good copy stays in use only when there is one.
    const what = { refused: 'peer registry refused', failed: 'peer unreachable', disk: 'peer registry in use, but not kept on disk' }[event.kind];
    const still = event.kind === 'disk' ? '' : event.serving ? '; its last good copy stays in use' : '; nothing of this peer is served until a copy passes every check';
    log?.warn({ peer, reason: event.reason }, `${what}${still}`);
  }
}

/** host:port of a Redis URL: never its password. */
function redisAddress (url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || '6379'}`;
}

/**
 * Node's own request timeouts, given when the server is created (Fastify's `http` option).
 * Fastify alone sets only requestTimeout, after creation: headersTimeout then stays at 60 s and,
 * being longer, swaps roles with it (Node: headersTimeout "must be <= requestTimeout"), and Node
 * checks both only every connectionsCheckingInterval (30 s by default): a body sent a byte a
 * second with REQUEST_TIMEOUT_MS=5000 was answered 408 after 88 s.
 */
function requestTimeouts ({ requestTimeoutMs }: Config): ServerOptions {
  // Node's default rule (the smaller of 60 s and requestTimeout), kept when requestTimeout is 0
  // ("no limit"), so that headers must still arrive in time.
  const headersTimeout = requestTimeoutMs > 0 ? Math.min(60_000, requestTimeoutMs) : 60_000;
  // A check every second, or four within a shorter limit: a request is cut off at most a
  // quarter of its limit late.
  const connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4)));
  return { requestTimeout: requestTimeoutMs, headersTimeout, connectionsCheckingInterval };
}

/**
 * The composition root: loads the registry, opens the session store, creates the Fastify
 * instance and registers the app. The one way in, for the server entry and for the tests.
 * Throws RegistryError (bad registry) or RedisUnreachable (REDIS_URL set, Redis down).
 */
export async function buildApp (config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const rules = { allowLoopbackHttp: config.federationAllowLoopbackHttp };
  const signing = await chooseSigning({ registryFile: config.registryPath, pubkey: config.curatorPubkey, seed: config.curatorSeed, rules });
  // Read once and shared by our registry and every peer's: about 25 MB, never per request.
  const meaning = config.semanticStage ? loadWordVectors() : undefined;
  const load = (served?: Catalog) => prepareCatalog(config.registryPath, signing, config.matchThreshold, { served, rules, meaning });
  const holder = new CatalogHolder(await load(), load);
  // The store is opened before the Fastify instance exists; its log lines go to the instance's logger.
  const log: { to?: FastifyBaseLogger } = {};
  const sessions = await sessionStore(config, () => log.to);
  const federation = new Federation({
    refreshMs: config.federationRefreshMs,
    cacheDir: config.federationCacheDir,
    allowLoopbackHttp: config.federationAllowLoopbackHttp,
    matchThreshold: config.matchThreshold,
    meaning,
    onEvent: (event) => federationLog(log.to, event),
  });
  federation.setPeers(holder.current().registry.endorsements);
  const metrics = createMetrics(sessions, holder.current(), federation);
  const demand = await createDemandSignal({
    recording: config.demandSignal,
    minClients: config.demandMinClients,
    windowDays: config.demandWindowDays,
    ipv6Prefix: config.demandIpv6Prefix,
    redisUrl: config.redisUrl,
    secret: config.demandSecret,
  });

  const instance = Fastify({
    // Asynchronous writes: under load lines queue behind the write in flight and go out together
    // instead of one blocking write per request; pino flushes what is left when the process exits.
    logger: { level: config.logLevel, stream: options.logStream ?? pino.destination({ dest: 2, sync: false }) },
    genReqId: () => randomUUID(),
    // Our request-log plugin writes the one line per request instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Fastify's defaults would turn "id": 1 into "1" and silently drop unknown keys.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false } },
    http: requestTimeouts(config),
    connectionTimeout: config.connectionTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    ...(config.trustProxy.length > 0 ? { trustProxy: [...config.trustProxy] } : {}),
    // A malformed URL (GET /%) answers in the same shape as any other non-MCP error.
    frameworkErrors: (error, request, reply) => sendFailure(request, reply, failureOf(error)),
  });
  log.to = instance.log;
  // Disk copies only (never a peer): a restarted server answers from its peers at once.
  await federation.loadCache();
  if (config.demandSignal && config.redisUrl !== undefined && config.demandSecret === undefined) {
    instance.log.warn('demand counts stay in this process\'s memory (lost at restart, not shared by replicas): REDIS_URL is set but DEMAND_SECRET is not (see What agents ask: the demand signal, in docs/curators.md)');
  }
  const publicKey = signingKey(signing);
  if (signing.mode === 'ephemeral' && config.redisUrl !== undefined) {
    // REDIS_URL means replicas: each would make its own key, and agents would see one registry under as many keys and digests.
    instance.log.warn(
      'REDIS_URL is set (replicas share sessions) but no curator key is: each replica signs with a key of its own, so agents see the same registry under different keys and signatures; give every replica the same CURATOR_PUBKEY (a curator-signed registry) or CURATOR_KEY_FILE (see Several replicas in docs/operators.md)'
    );
  }
  if (signing.mode === 'ephemeral') {
    instance.log.warn(
      { publicKey },
      'NO CURATOR KEY CONFIGURED: signing the registry with an ephemeral key; signatures and the public key will change on restart, and they prove nothing about any curator. In production the curator signs offline (npx three-good-sources keygen, then sign) and the server gets only the public key: set CURATOR_PUBKEY (see "The production path" in docs/curators.md).'
    );
  }
  const serverVersion = packageVersion();
  // One line that says what is served, how it is signed and where sessions live (pino adds the pid).
  instance.addHook('onListen', (done) => {
    const { registry, signed } = holder.current();
    const categories = Object.keys(registry.categories).length;
    const redis = config.redisUrl === undefined ? undefined : redisAddress(config.redisUrl);
    instance.log.info(
      {
        address: instance.listeningOrigin,
        serverVersion,
        registry: { path: config.registryPath, version: registry.version, sha256: signed.sha256, categories },
        signing: { mode: signing.mode, publicKey, ...(signing.mode === 'curator' ? { keySource: signing.keySource } : {}) },
        sessionStore: redis === undefined ? { kind: 'memory' } : { kind: 'redis', address: redis },
      },
      `serving registry ${registry.version} (${categories} categories) on ${instance.listeningOrigin}, ${SIGNING_IN_LOG[signing.mode]} ${publicKey}, sessions in ${redis === undefined ? 'memory' : `redis at ${redis}`}`
    );
    done();
  });
  // fastify-plugin, as fastify/demo does: the app's handlers and decorator belong to the root instance.
  await instance.register(fp(app), { config, holder, sessions, metrics, serverVersion, federation, demand });
  return instance;
}
