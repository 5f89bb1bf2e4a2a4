import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import envSchema from 'env-schema';
import type { ErrorObject } from 'ajv';
import { StartupError } from './errors.js';
import { DEFAULT_THRESHOLD } from './matcher/matcher.js';
import { projectRoot } from './project.js';
import { decodePublicKey, parseSeed } from './provenance/keys.js';
import { PUBLIC_KEY_LENGTH } from './registry/schema.js';

/** A variable's rule in JSON Schema, checked by env-schema once it has coerced the text. */
type Rule =
  | { readonly type: 'integer' | 'number'; readonly minimum: number; readonly maximum: number }
  | { readonly type: 'string'; readonly minLength?: number; readonly pattern?: string }
  | { readonly enum: readonly string[] };

export interface Variable {
  readonly rule: Rule;
  readonly default?: string | number;
  /** The configuration table's default column (docs/operators.md), where the value alone would not say it. */
  readonly shownDefault?: string;
  /** The configuration table's meaning column. */
  readonly meaning: string;
  /** Its value never appears in a message. */
  readonly secret?: boolean;
  /** What a refusal says the rule is, where the schema validator's own words would not help ("must NOT have fewer than 16 characters"). */
  readonly refusal?: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const integer = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum }) as const;
const text = { type: 'string', minLength: 1 } as const;
const code = (word: string): string => `\`${word}\``;
const oneOf = (words: readonly string[]): string => `${words.slice(0, -1).map(code).join(', ')} or ${code(words[words.length - 1]!)}`;

/**
 * Every setting, declared once: its rule and default, what the configuration table in docs/operators.md says
 * about it (test/src/config.test.ts holds that table to this one), and whether it is a secret.
 * `toConfig` turns the checked values into a Config; both types are derived from these two.
 */
export const VARIABLES = {
  HOST: { rule: text, default: '127.0.0.1', meaning: 'address to listen on (the container sets `0.0.0.0`)' },
  PORT: { rule: integer(0, 65_535), default: 3000, meaning: 'TCP port, 0 to 65535 (0 picks a free one)' },
  REGISTRY_PATH: { rule: text, shownDefault: 'the shipped `registry.json`', meaning: 'registry file to serve' },
  LOG_LEVEL: { rule: { enum: LOG_LEVELS }, default: 'info', meaning: oneOf(LOG_LEVELS) },
  MATCH_THRESHOLD: {
    rule: { type: 'number', minimum: 0, maximum: 1 },
    default: DEFAULT_THRESHOLD,
    meaning: "minimum match score (0 to 1) for `get_sources`; a call's own `threshold` overrides it",
  },
  SEMANTIC_STAGE: {
    rule: { enum: ['on', 'off'] },
    default: 'on',
    meaning:
      '`off` leaves out the semantic stage: a declined question then names only the categories that share its words, not also the ones nearest in meaning (saves about 16 MB of memory and 40 ms at start)',
  },
  ALLOWED_ORIGINS: {
    rule: { type: 'string' },
    default: '',
    meaning:
      'comma-separated browser origins allowed besides localhost ones, e.g. `https://app.example.com`; other `Origin`s get 403 on `/mcp`. @fastify/cors uses the same list',
  },
  ALLOWED_HOSTS: {
    rule: { type: 'string' },
    default: '',
    meaning:
      'comma-separated host names a request may name in its `Host` header besides localhost ones, e.g. `3gs.example.org`, for a server on a loopback address behind a reverse proxy that passes the public host (see Behind a reverse proxy); on other addresses the `Host` header is not checked',
  },
  PUBLIC_URL: {
    rule: text,
    shownDefault: 'none (from the request, see Behind a reverse proxy)',
    meaning:
      'the address agents and readers reach this server at, e.g. `https://3gs.example.org`: the server card\'s MCP URL and the page\'s examples use it, whatever a request\'s headers say. Without it they use the request\'s `Host`, a forwarded host only when `ALLOWED_HOSTS` names it, and only `http` or `https`',
  },
  SESSION_TTL_SECONDS: { rule: integer(1, 86_400), default: 1800, meaning: 'a session unused this long is forgotten' },
  MAX_SESSIONS: { rule: integer(1, 10_000_000), default: 10_000, meaning: 'most sessions held; the least recently used goes first (the memory store sets aside about 45 bytes for each at start)' },
  CURATOR_PUBKEY: {
    rule: text,
    meaning:
      "the curator's public key (z-base-32): the server verifies the curator-signed registry with it and holds no secret (see Sign and publish a registry)",
  },
  CURATOR_SECRET_KEY: {
    rule: { type: 'string' },
    secret: true,
    meaning: "the curator's Ed25519 seed, 64 hex characters, for server-side signing (secret; see Sign and publish a registry)",
  },
  CURATOR_KEY_FILE: { rule: text, meaning: 'a file holding that seed, as `npx three-good-sources keygen` writes it' },
  REDIS_URL: {
    rule: { type: 'string' },
    secret: true,
    shownDefault: 'none (sessions and demand counts in memory)',
    meaning:
      '`redis://` or `rediss://` URL of a Redis shared by every replica for 2025-era sessions and the demand counts (may hold a password: never logged)',
  },
  RATE_LIMIT_MAX: { rule: integer(0, 1_000_000), default: 600, meaning: 'requests per client per window on `/mcp`, the page and `/demand` together (a client is its IPv4 address or its IPv6 network, see `RATE_LIMIT_IPV6_PREFIX`, without any port a proxy forwards); `0` turns rate limiting off' },
  RATE_LIMIT_WINDOW_MS: { rule: integer(1000, 86_400_000), default: 60_000, meaning: 'the rate-limit window, at least 1000 ms' },
  RATE_LIMIT_IPV6_PREFIX: {
    rule: integer(32, 128),
    default: 64,
    meaning: 'for the rate limit, an IPv6 client is its network of this many bits, 32 to 128 (a host commonly holds a whole /64 and rotates addresses inside it)',
  },
  TRUST_PROXY: {
    rule: { type: 'string' },
    default: '',
    meaning:
      'comma-separated addresses or CIDR ranges of proxies whose `X-Forwarded-For` names the client (rate limits then count per client, not per proxy)',
  },
  MAX_EVENT_LOOP_DELAY_MS: {
    rule: integer(0, 60_000),
    default: 1000,
    meaning: 'event-loop delay above which `/mcp` sheds load with 503; `0` turns the check off',
  },
  MAX_HEAP_USED_MB: { rule: integer(0, 1_000_000), default: 0, shownDefault: '`0` (off)', meaning: 'heap in use above which `/mcp` sheds load with 503' },
  SHUTDOWN_GRACE_MS: {
    rule: integer(100, 600_000),
    default: 10_000,
    meaning: 'how long SIGTERM/SIGINT may take to finish requests in flight before the process exits anyway (exit 1)',
  },
  CONNECTION_TIMEOUT_MS: { rule: integer(0, 3_600_000), default: 30_000, meaning: 'a socket silent this long is closed; `0` never' },
  REQUEST_TIMEOUT_MS: {
    rule: integer(0, 3_600_000),
    default: 30_000,
    meaning:
      'longest a request may take to arrive, headers and body (408 after it, checked at least every second); `0`: no limit on the body, headers still within 60 s',
  },
  KEEP_ALIVE_TIMEOUT_MS: {
    rule: integer(0, 3_600_000),
    default: 72_000,
    meaning: "keep-alive timeout (longer than common load balancers' idle timeout)",
  },
  FEDERATION_REFRESH_SECONDS: {
    rule: integer(1, 86_400),
    default: 300,
    meaning: "how often each endorsed peer's registry is fetched again (with jitter; a failing peer backs off up to this long)",
  },
  FEDERATION_CACHE_DIR: {
    rule: text,
    shownDefault: 'none (no disk copies)',
    meaning: "folder for the last good copy of each peer's registry, so that a restarted server answers from peers at once",
  },
  FEDERATION_ALLOW_LOOPBACK_HTTP: {
    rule: { enum: ['true', 'false'] },
    default: 'false',
    meaning: '`true` also allows `http://127.0.0.1:<port>` and `http://localhost:<port>` peers (tests and local demos), nothing else',
  },
  DEMAND_SIGNAL: {
    rule: { enum: ['on', 'off'] },
    default: 'on',
    meaning: '`off` records nothing of what agents ask (see What agents ask: the demand signal, in docs/curators.md)',
  },
  DEMAND_MIN_CLIENTS: {
    rule: integer(2, 32),
    default: 5,
    meaning:
      'k, 2 to 32: a word, phrase or query is shown (report, page) only once at least this many distinct clients asked it on one day (clients are told apart in 64 buckets: k = 32 takes about 45 clients)',
  },
  DEMAND_IPV6_PREFIX: {
    rule: integer(32, 128),
    default: 56,
    meaning: 'for k, an IPv6 client is its network of this many bits, 32 to 128 (a home is commonly given a whole /56: at /64 it could count as 256 clients)',
  },
  DEMAND_WINDOW_DAYS: { rule: integer(1, 365), default: 30, meaning: 'days the demand counts are kept; older days are deleted whole' },
  DEMAND_TOKEN: {
    rule: { type: 'string', minLength: 16, pattern: '^\\S+$' },
    secret: true,
    refusal: 'must be at least 16 characters without spaces, e.g. from `openssl rand -hex 32`',
    shownDefault: 'none (no `/demand` route)',
    meaning:
      'bearer token for `GET /demand`, the curator\'s demand report, at least 16 characters without spaces, e.g. from `openssl rand -hex 32` (secret); without it the route does not exist',
  },
  DEMAND_SECRET: {
    rule: { type: 'string', minLength: 32, pattern: '^\\S+$' },
    secret: true,
    refusal: 'must be at least 32 characters without spaces, e.g. from `openssl rand -hex 32`',
    shownDefault: 'none (with `REDIS_URL`, demand counts stay in each replica\'s memory)',
    meaning:
      'with `REDIS_URL`: a secret shared by the replicas and kept out of Redis, at least 32 characters (e.g. `openssl rand -hex 32`), from which the daily salts and the names of counted words in Redis are derived; without it nothing of the demand signal goes to Redis',
  },
  DEMAND_PUBLIC: {
    rule: { enum: ['true', 'false'] },
    default: 'false',
    meaning: '`true` lists on the page the most requested topics nobody here covers (the same k)',
  },
  PID_FILE: { rule: text, meaning: 'file the server writes its process id to once it listens, and removes on exit: `kill -HUP "$(cat "$PID_FILE")"`' },
} as const satisfies Record<string, Variable>;

type Name = keyof typeof VARIABLES;
type ValueOf<R> = R extends { readonly enum: readonly (infer E)[] } ? E : R extends { readonly type: 'string' } ? string : number;
/** The checked values: a variable without a default may be undefined. */
type Checked = {
  readonly [N in Name]: (typeof VARIABLES)[N] extends { readonly default: unknown }
    ? ValueOf<(typeof VARIABLES)[N]['rule']>
    : ValueOf<(typeof VARIABLES)[N]['rule']> | undefined;
};
/** Records one problem line for a variable; the first one found for each variable is kept. */
type Report = (name: Name, line: string) => void;

const NAMES = Object.keys(VARIABLES) as Name[];
const SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(
    NAMES.map((name) => {
      const v: Variable = VARIABLES[name];
      return [name, v.default === undefined ? v.rule : { ...v.rule, default: v.default }];
    })
  ),
};

/** The mapping to what the app uses: the one place where the names of Config are declared. */
function toConfig (v: Checked, report: Report) {
  return {
    host: parseHost(v.HOST, report),
    port: v.PORT,
    registryPath: v.REGISTRY_PATH ?? join(projectRoot(), 'registry.json'),
    logLevel: v.LOG_LEVEL,
    matchThreshold: v.MATCH_THRESHOLD,
    /** Exact origins allowed besides localhost ones (scheme://host[:port]). */
    allowedOrigins: parseOrigins(v.ALLOWED_ORIGINS, report),
    /** Host names (lowercase, no port) a loopback-bound server accepts in the Host header besides localhost ones. */
    allowedHosts: parseHosts(v.ALLOWED_HOSTS, report),
    /** The public origin (scheme://host[:port]) for the card and the page; undefined: from the request. */
    publicUrl: parsePublicUrl(v.PUBLIC_URL, report),
    sessionTtlMs: v.SESSION_TTL_SECONDS * 1000,
    maxSessions: v.MAX_SESSIONS,
    /** The curator's Ed25519 seed (secret: never logged); undefined means an ephemeral key. */
    curatorSeed: curatorSeed(v.CURATOR_SECRET_KEY, v.CURATOR_KEY_FILE, report),
    /** The curator's public key: verify the curator's own signature, sign nothing here. */
    curatorPubkey: curatorPubkey(v.CURATOR_PUBKEY, v.CURATOR_SECRET_KEY ?? v.CURATOR_KEY_FILE, report),
    /** Shared session store for several replicas (may hold a password: never logged); undefined keeps sessions in memory. */
    redisUrl: redisUrl(v.REDIS_URL, report),
    /** Requests per client per window on /mcp; 0 turns rate limiting off. */
    rateLimitMax: v.RATE_LIMIT_MAX,
    rateLimitWindowMs: v.RATE_LIMIT_WINDOW_MS,
    /** Bits of an IPv6 address that are one client: for the rate limit, and for k. */
    rateLimitIpv6Prefix: v.RATE_LIMIT_IPV6_PREFIX,
    demandIpv6Prefix: v.DEMAND_IPV6_PREFIX,
    /** Event-loop delay above which /mcp sheds load with 503; 0 turns the check off. */
    maxEventLoopDelayMs: v.MAX_EVENT_LOOP_DELAY_MS,
    /** Heap in use above which /mcp sheds load with 503; 0 turns the check off. */
    maxHeapUsedBytes: v.MAX_HEAP_USED_MB * 1024 * 1024,
    /** Proxies whose X-Forwarded-For names the client (addresses or CIDRs); empty trusts none. */
    trustProxy: parseTrustProxy(v.TRUST_PROXY, report),
    /** How long a graceful shutdown may take before the process exits anyway. */
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    /** Server timeouts: silent socket, whole request (0: none), keep-alive. */
    connectionTimeoutMs: v.CONNECTION_TIMEOUT_MS,
    requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: v.KEEP_ALIVE_TIMEOUT_MS,
    /** Peers: refresh period, disk cache, and loopback http for tests and demos. */
    federationRefreshMs: v.FEDERATION_REFRESH_SECONDS * 1000,
    federationCacheDir: v.FEDERATION_CACHE_DIR,
    federationAllowLoopbackHttp: v.FEDERATION_ALLOW_LOOPBACK_HTTP === 'true',
    semanticStage: v.SEMANTIC_STAGE === 'on',
    /** The demand signal: on unless DEMAND_SIGNAL=off; k, the window, the curator's token, the page's list. */
    demandSignal: v.DEMAND_SIGNAL === 'on',
    demandMinClients: v.DEMAND_MIN_CLIENTS,
    demandWindowDays: v.DEMAND_WINDOW_DAYS,
    demandToken: v.DEMAND_TOKEN,
    /** Shared by the replicas, never in Redis: what the demand counts in Redis are keyed with. */
    demandSecret: v.DEMAND_SECRET,
    demandPublic: v.DEMAND_PUBLIC === 'true',
    /** Where the process entry writes its pid once listening; undefined writes none. */
    pidFile: v.PID_FILE,
  };
}

/** The configuration the app runs with, derived from `toConfig`. */
export interface Config extends Readonly<ReturnType<typeof toConfig>> {}

/** A configuration that must stop start-up: one line per variable, naming it and the rule. */
export class ConfigError extends StartupError {
  readonly problems: readonly string[];
  constructor (problems: readonly string[]) {
    super('THREEGS_CONFIG', problems.map((p) => `invalid configuration: ${p}`).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Reads and checks the configuration from `env` alone. Unset, empty and blank variables take
 * their defaults (compose files and systemd units leave variables empty). Every invalid variable
 * is reported, not only the first.
 */
export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  const data: Partial<Record<Name, string>> = {};
  for (const name of NAMES) {
    const value = env[name]?.trim();
    if (value) data[name] = value;
  }
  const problems = new Map<Name, string>();
  const report: Report = (name, line) => {
    if (!problems.has(name)) problems.set(name, line);
  };
  const config = toConfig(check(data, report), report);
  if (problems.size > 0) throw new ConfigError(NAMES.filter((n) => problems.has(n)).map((n) => problems.get(n)!));
  return config;
}

/** Coerces and checks with env-schema; an invalid variable is reported, then left at its default. */
function check (data: Partial<Record<Name, string>>, report: Report): Checked {
  // env: false: only `data`, never process.env (env-schema would merge it underneath).
  const run = () => envSchema<Checked>({ schema: SCHEMA, data, env: false, dotenv: false });
  try {
    return run();
  } catch (err) {
    for (const error of (err as { errors?: ErrorObject[] }).errors ?? []) {
      const name = error.instancePath.replace(/^\//, '') as Name;
      const v: Variable = VARIABLES[name];
      const rule = v.refusal ?? (error.keyword === 'enum' ? `must be one of ${(error.params as { allowedValues: string[] }).allowedValues.join(', ')}` : (error.message ?? 'is invalid'));
      report(name, v.secret ? `${name} ${rule}` : `${name} ${rule} (got "${data[name]}")`);
      delete data[name];
    }
    // The variables left are valid on their own, so this run passes and gives their values.
    return run();
  }
}

function redisUrl (text: string | undefined, report: Report): string | undefined {
  if (text === undefined) return undefined;
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || !/^rediss?:$/.test(url.protocol)) {
    // The value may hold a password: say what is wrong without repeating it.
    report('REDIS_URL', 'REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379');
    return undefined;
  }
  return text;
}

const quoted = (items: string[]): string => items.map((i) => `"${i}"`).join(', ');

/** Addresses or CIDR ranges; Fastify 5.12 refuses a bare hop count, so we never pass one. */
function parseTrustProxy (list: string, report: Report): readonly string[] {
  const entries = list.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = entries.filter((entry) => {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address!);
    const maxBits = family === 4 ? 32 : 128;
    return extra !== undefined || family === 0 || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits));
  });
  if (bad.length > 0) report('TRUST_PROXY', `TRUST_PROXY must be a comma-separated list of IP addresses or CIDR ranges (got ${quoted(bad)})`);
  return entries;
}

/** Host names as a proxy passes them: letters, digits, hyphens and dots, no scheme, port or path. */
function parseHosts (list: string, report: Report): readonly string[] {
  const items = list.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const valid = (h: string) => h.length <= 253 && /^(?=.*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(h);
  const bad = items.filter((h) => !valid(h));
  if (bad.length > 0) report('ALLOWED_HOSTS', `ALLOWED_HOSTS must be a comma-separated list of host names like 3gs.example.org, without scheme, port or path (got ${quoted(bad)})`);
  return items.filter(valid);
}

/** An IP address or a host name: what the server can listen on. Checked here, with the others, not after start-up's first log lines. */
function parseHost (host: string, report: Report): string {
  const name = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
  if (isIP(host) === 0 && !name.test(host)) report('HOST', `HOST must be an IP address or a host name, e.g. 127.0.0.1, 0.0.0.0, ::1 or localhost (got "${host}")`);
  return host;
}

function parsePublicUrl (value: string | undefined, report: Report): string | undefined {
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url !== undefined && /^https?:$/.test(url.protocol) && url.origin === value.replace(/\/$/, '')) return url.origin;
  report('PUBLIC_URL', `PUBLIC_URL must be an http or https origin like https://3gs.example.org, without path, query or credentials (got "${value}")`);
  return undefined;
}

function parseOrigins (list: string, report: Report): readonly string[] {
  const items = list.split(',').map((s) => s.trim()).filter(Boolean);
  const origin = (item: string): string | undefined => {
    const url = URL.canParse(item) ? new URL(item) : undefined;
    return url !== undefined && /^https?:$/.test(url.protocol) && url.origin === item.replace(/\/$/, '') ? url.origin : undefined;
  };
  const bad = items.filter((item) => origin(item) === undefined);
  if (bad.length > 0) report('ALLOWED_ORIGINS', `ALLOWED_ORIGINS must be a comma-separated list of origins like https://app.example.com (got ${quoted(bad)})`);
  return items.map(origin).filter((o) => o !== undefined);
}

function curatorPubkey (pubkey: string | undefined, secret: string | undefined, report: Report): string | undefined {
  if (pubkey === undefined) return undefined;
  if (decodePublicKey(pubkey) === undefined) {
    report('CURATOR_PUBKEY', `CURATOR_PUBKEY must be a z-base-32 Ed25519 public key, ${PUBLIC_KEY_LENGTH} characters, as keygen prints it (got "${pubkey}")`);
    return undefined;
  }
  if (secret !== undefined) {
    report('CURATOR_PUBKEY', 'set CURATOR_PUBKEY (verify the curator\'s signature, no secret here) or CURATOR_SECRET_KEY/CURATOR_KEY_FILE (sign here), not both');
    return undefined;
  }
  return pubkey;
}

const SEED_RULE = 'must be 64 hexadecimal characters (the 32-byte Ed25519 seed that keygen writes)';

function curatorSeed (secret: string | undefined, file: string | undefined, report: Report): Buffer | undefined {
  if (secret !== undefined && file !== undefined) {
    report('CURATOR_SECRET_KEY', 'set CURATOR_SECRET_KEY or CURATOR_KEY_FILE, not both');
    return undefined;
  }
  if (secret !== undefined) {
    const seed = parseSeed(secret);
    if (seed === undefined) report('CURATOR_SECRET_KEY', `CURATOR_SECRET_KEY ${SEED_RULE}`);
    return seed;
  }
  if (file === undefined) return undefined;
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    report('CURATOR_KEY_FILE', `CURATOR_KEY_FILE cannot be read (${(err as NodeJS.ErrnoException).code ?? 'read error'}): ${file}`);
    return undefined;
  }
  const seed = parseSeed(content.trim());
  // Says what is wrong with the content, never the content.
  if (seed === undefined) report('CURATOR_KEY_FILE', `the file named by CURATOR_KEY_FILE ${SEED_RULE}`);
  return seed;
}
