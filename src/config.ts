import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import envSchema from 'env-schema';
import type { ErrorObject } from 'ajv';
import { StartupError } from './errors.js';
import { projectRoot } from './project.js';
import { parseSeed } from './provenance/keys.js';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly registryPath: string;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly matchThreshold: number;
  /** Exact origins allowed besides localhost ones (scheme://host[:port]). */
  readonly allowedOrigins: readonly string[];
  readonly sessionTtlMs: number;
  readonly maxSessions: number;
  /** The curator's Ed25519 seed (secret: never logged); undefined means an ephemeral key. */
  readonly curatorSeed: Buffer | undefined;
  /** Shared session store for several replicas (may hold a password: never logged); undefined keeps sessions in memory. */
  readonly redisUrl: string | undefined;
  /** Requests per client per window on /mcp; 0 turns rate limiting off. */
  readonly rateLimitMax: number;
  readonly rateLimitWindowMs: number;
  /** Event-loop delay above which /mcp sheds load with 503; 0 turns the check off. */
  readonly maxEventLoopDelayMs: number;
  /** Heap in use above which /mcp sheds load with 503; 0 turns the check off. */
  readonly maxHeapUsedBytes: number;
  /** Proxies whose X-Forwarded-For names the client (addresses or CIDRs); empty trusts none. */
  readonly trustProxy: readonly string[];
  /** How long a graceful shutdown may take before the process exits anyway. */
  readonly shutdownGraceMs: number;
  /** Server timeouts: idle connection, whole request, keep-alive. */
  readonly connectionTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

/** A configuration that must stop start-up; the message names the variable and the rule. */
export class ConfigError extends StartupError {
  constructor(message: string) {
    super('THREEGS_CONFIG', message);
    this.name = 'ConfigError';
  }
}

const schema = {
  type: 'object',
  properties: {
    HOST: { type: 'string', minLength: 1, default: '127.0.0.1' },
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
    REGISTRY_PATH: { type: 'string', minLength: 1 },
    LOG_LEVEL: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    MATCH_THRESHOLD: { type: 'number', minimum: 0, maximum: 1, default: 0.4 },
    ALLOWED_ORIGINS: { type: 'string', default: '' },
    SESSION_TTL_SECONDS: { type: 'integer', minimum: 1, maximum: 86_400, default: 1800 },
    MAX_SESSIONS: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 10_000 },
    RATE_LIMIT_MAX: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 600 },
    RATE_LIMIT_WINDOW_MS: { type: 'integer', minimum: 1000, maximum: 86_400_000, default: 60_000 },
    MAX_EVENT_LOOP_DELAY_MS: { type: 'integer', minimum: 0, maximum: 60_000, default: 1000 },
    MAX_HEAP_USED_MB: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
    TRUST_PROXY: { type: 'string', default: '' },
    SHUTDOWN_GRACE_MS: { type: 'integer', minimum: 100, maximum: 600_000, default: 10_000 },
    CONNECTION_TIMEOUT_MS: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 30_000 },
    REQUEST_TIMEOUT_MS: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 30_000 },
    KEEP_ALIVE_TIMEOUT_MS: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 72_000 },
    // Secrets: checked below, so that no error message ever repeats their value.
    CURATOR_SECRET_KEY: { type: 'string' },
    CURATOR_KEY_FILE: { type: 'string' },
    REDIS_URL: { type: 'string' },
  },
} as const;

interface RawEnv {
  HOST: string;
  PORT: number;
  REGISTRY_PATH?: string;
  LOG_LEVEL: Config['logLevel'];
  MATCH_THRESHOLD: number;
  ALLOWED_ORIGINS: string;
  SESSION_TTL_SECONDS: number;
  MAX_SESSIONS: number;
  CURATOR_SECRET_KEY?: string;
  CURATOR_KEY_FILE?: string;
  REDIS_URL?: string;
  RATE_LIMIT_MAX: number;
  RATE_LIMIT_WINDOW_MS: number;
  MAX_EVENT_LOOP_DELAY_MS: number;
  MAX_HEAP_USED_MB: number;
  TRUST_PROXY: string;
  SHUTDOWN_GRACE_MS: number;
  CONNECTION_TIMEOUT_MS: number;
  REQUEST_TIMEOUT_MS: number;
  KEEP_ALIVE_TIMEOUT_MS: number;
}

/** Reads and validates the configuration. Unset and empty variables take their defaults. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const data: Record<string, string> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') data[key] = value.trim();
  }
  let raw: RawEnv;
  try {
    raw = envSchema<RawEnv>({ schema, data, dotenv: false });
  } catch (err) {
    throw new ConfigError(describe((err as { errors?: ErrorObject[] }).errors, data) ?? (err as Error).message);
  }
  return {
    host: raw.HOST,
    port: raw.PORT,
    registryPath: raw.REGISTRY_PATH ?? join(projectRoot(), 'registry.json'),
    logLevel: raw.LOG_LEVEL,
    matchThreshold: raw.MATCH_THRESHOLD,
    allowedOrigins: parseOrigins(raw.ALLOWED_ORIGINS),
    sessionTtlMs: raw.SESSION_TTL_SECONDS * 1000,
    maxSessions: raw.MAX_SESSIONS,
    curatorSeed: curatorSeed(raw.CURATOR_SECRET_KEY, raw.CURATOR_KEY_FILE),
    redisUrl: redisUrl(raw.REDIS_URL),
    rateLimitMax: raw.RATE_LIMIT_MAX,
    rateLimitWindowMs: raw.RATE_LIMIT_WINDOW_MS,
    maxEventLoopDelayMs: raw.MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: raw.MAX_HEAP_USED_MB * 1024 * 1024,
    trustProxy: parseTrustProxy(raw.TRUST_PROXY),
    shutdownGraceMs: raw.SHUTDOWN_GRACE_MS,
    connectionTimeoutMs: raw.CONNECTION_TIMEOUT_MS,
    requestTimeoutMs: raw.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: raw.KEEP_ALIVE_TIMEOUT_MS,
  };
}

function redisUrl(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || !/^rediss?:$/.test(url.protocol)) {
    // The value may hold a password: say what is wrong without repeating it.
    throw new ConfigError('invalid configuration: REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379');
  }
  return text;
}

/** Addresses or CIDR ranges; Fastify 5.12 refuses a bare hop count, so we never pass one. */
function parseTrustProxy(list: string): string[] {
  const entries = list.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const ok = extra === undefined && address !== undefined && isIP(address) !== 0 && (bits === undefined || /^\d{1,3}$/.test(bits));
    if (!ok) {
      throw new ConfigError(`invalid configuration: TRUST_PROXY must be a comma-separated list of IP addresses or CIDR ranges (got "${entry}")`);
    }
  }
  return entries;
}

const SEED_RULE = 'must be 64 hexadecimal characters (the 32-byte Ed25519 seed that keygen writes)';

function curatorSeed(secret: string | undefined, file: string | undefined): Buffer | undefined {
  if (secret !== undefined && file !== undefined) {
    throw new ConfigError('invalid configuration: set CURATOR_SECRET_KEY or CURATOR_KEY_FILE, not both');
  }
  if (secret !== undefined) {
    const seed = parseSeed(secret);
    if (seed === undefined) throw new ConfigError(`invalid configuration: CURATOR_SECRET_KEY ${SEED_RULE}`);
    return seed;
  }
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'read error';
    throw new ConfigError(`invalid configuration: CURATOR_KEY_FILE cannot be read (${code}): ${file}`);
  }
  const seed = parseSeed(text.trim());
  if (seed === undefined) throw new ConfigError(`invalid configuration: the file named by CURATOR_KEY_FILE ${SEED_RULE}`);
  return seed;
}

function describe(errors: ErrorObject[] | undefined, data: Record<string, string>): string | undefined {
  const first = errors?.[0];
  if (first === undefined) return undefined;
  const name = first.instancePath.replace(/^\//, '');
  const rule =
    first.keyword === 'enum'
      ? `must be one of ${(first.params as { allowedValues: string[] }).allowedValues.join(', ')}`
      : (first.message ?? 'is invalid');
  return `invalid configuration: ${name} ${rule} (got "${data[name] ?? ''}")`;
}

function parseOrigins(list: string): string[] {
  const origins: string[] = [];
  for (const item of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const url = URL.canParse(item) ? new URL(item) : undefined;
    if (url === undefined || !/^https?:$/.test(url.protocol) || url.origin !== item.replace(/\/$/, '')) {
      throw new ConfigError(
        `invalid configuration: ALLOWED_ORIGINS must be a comma-separated list of origins like https://app.example.com (got "${item}")`,
      );
    }
    origins.push(url.origin);
  }
  return origins;
}
