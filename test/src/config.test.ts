import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, VARIABLES, loadConfig, type Variable } from '../../src/config.js';
import { DEFAULT_THRESHOLD } from '../../src/matcher/matcher.js';
import { ROOT, TEST_PUBLIC_KEY } from '../helpers/build.js';

/** Runs `fn` with these values in process.env, which loadConfig must never read. */
function withProcessEnv<T> (values: Record<string, string>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  Object.assign(process.env, values);
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The message loadConfig throws for this env. */
function problemsFor (env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error(`no ConfigError for ${JSON.stringify(env)}`);
}

const CONFLICTING = { PORT: '4444', HOST: '10.1.2.3', LOG_LEVEL: 'loud', MATCH_THRESHOLD: '7' };

t.test('defaults: 127.0.0.1:3000, the shipped registry, info logs, threshold 0.5', async (t) => {
  const c = withProcessEnv(CONFLICTING, () => loadConfig({}));
  t.equal(c.host, '127.0.0.1');
  t.equal(c.port, 3000);
  t.match(c.registryPath, /registry\.json$/);
  t.equal(c.logLevel, 'info');
  t.equal(c.matchThreshold, 0.5);
  t.equal(c.matchThreshold, DEFAULT_THRESHOLD, "the matcher's own default");
  t.same(c.allowedOrigins, []);
  t.equal(c.sessionTtlMs, 30 * 60 * 1000);
  t.equal(c.maxSessions, 10_000);
  t.equal(c.pidFile, undefined);
});

t.test('empty and blank variables take their defaults, whatever process.env holds', async (t) => {
  // As compose files and systemd units leave them: PORT= or PORT="  ".
  const c = withProcessEnv(CONFLICTING, () => loadConfig({ PORT: '', HOST: '   ', LOG_LEVEL: '\t', MATCH_THRESHOLD: ' ', PID_FILE: '' }));
  t.same([c.port, c.host, c.logLevel, c.matchThreshold, c.pidFile], [3000, '127.0.0.1', 'info', 0.5, undefined]);
  t.equal(withProcessEnv(CONFLICTING, () => loadConfig({ PORT: ' 8080 ' })).port, 8080, 'values are trimmed');
});

t.test('every variable is read', async (t) => {
  const c = loadConfig({
    HOST: '0.0.0.0',
    PORT: '8080',
    REGISTRY_PATH: '/tmp/r.json',
    LOG_LEVEL: 'debug',
    MATCH_THRESHOLD: '0.55',
    SEMANTIC_STAGE: 'off',
    ALLOWED_ORIGINS: 'https://a.example.com, http://b.example.org:8080/',
    ALLOWED_HOSTS: '3gs.example.org',
    SESSION_TTL_SECONDS: '60',
    MAX_SESSIONS: '5',
    PID_FILE: '/run/3gs.pid',
    PUBLIC_URL: 'https://3gs.example.org/',
  });
  t.same(c, {
    host: '0.0.0.0',
    port: 8080,
    registryPath: '/tmp/r.json',
    logLevel: 'debug',
    matchThreshold: 0.55,
    semanticStage: false,
    allowedOrigins: ['https://a.example.com', 'http://b.example.org:8080'],
    allowedHosts: ['3gs.example.org'],
    publicUrl: 'https://3gs.example.org',
    sessionTtlMs: 60_000,
    maxSessions: 5,
    curatorSeed: undefined,
    redisUrl: undefined,
    rateLimitMax: 600,
    rateLimitWindowMs: 60_000,
    rateLimitIpv6Prefix: 64,
    demandIpv6Prefix: 56,
    maxEventLoopDelayMs: 1000,
    maxHeapUsedBytes: 0,
    trustProxy: [],
    shutdownGraceMs: 10_000,
    connectionTimeoutMs: 30_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 72_000,
    pidFile: '/run/3gs.pid',
    curatorPubkey: undefined,
    federationRefreshMs: 300_000,
    federationCacheDir: undefined,
    federationAllowLoopbackHttp: false,
    demandSignal: true,
    demandMinClients: 5,
    demandWindowDays: 30,
    demandToken: undefined,
    demandPublic: false,
  });
  const demand = loadConfig({ DEMAND_SIGNAL: 'off', DEMAND_MIN_CLIENTS: '10', DEMAND_WINDOW_DAYS: '7', DEMAND_TOKEN: 'a-token-of-20-chars!', DEMAND_PUBLIC: 'true' });
  t.same([demand.demandSignal, demand.demandMinClients, demand.demandWindowDays, demand.demandToken, demand.demandPublic], [false, 10, 7, 'a-token-of-20-chars!', true]);
  t.throws(() => loadConfig({ DEMAND_MIN_CLIENTS: '1' }), { message: /DEMAND_MIN_CLIENTS must be >= 2/ }, 'k of 1 would show what one client asked');
  t.throws(() => loadConfig({ DEMAND_TOKEN: 'short-secret' }), { message: /^invalid configuration: DEMAND_TOKEN must be at least 16 characters without spaces, e\.g\. from `openssl rand -hex 32`$/ }, 'a short token is refused without repeating it');
  t.throws(() => loadConfig({ DEMAND_SIGNAL: 'no' }), { message: /DEMAND_SIGNAL must be one of on, off/ });
  t.equal(loadConfig({}).semanticStage, true, 'the semantic stage runs unless turned off');
  t.throws(() => loadConfig({ DEMAND_SECRET: 'has a space in it and is long enough to pass' }), { message: /^invalid configuration: DEMAND_SECRET must be at least 32 characters without spaces, e\.g\. from `openssl rand -hex 32`$/ }, 'issue 33, item 11: said plainly, never repeated');
  for (const host of ['not a host', 'http://127.0.0.1', '127.0.0.1:3000', '-bad-.example']) {
    t.throws(() => loadConfig({ HOST: host }), { message: /HOST must be an IP address or a host name, e\.g\. 127\.0\.0\.1, 0\.0\.0\.0, ::1 or localhost \(got ".*"\)/ }, `HOST ${host} refused with the others (issue 33, item 11)`);
  }
  for (const host of ['0.0.0.0', '::', '::1', 'localhost', 'my-host.internal']) t.equal(loadConfig({ HOST: host }).host, host);
  const prefixes = loadConfig({ RATE_LIMIT_IPV6_PREFIX: '48', DEMAND_IPV6_PREFIX: '64' });
  t.same([prefixes.rateLimitIpv6Prefix, prefixes.demandIpv6Prefix], [48, 64]);
  t.throws(() => loadConfig({ DEMAND_IPV6_PREFIX: '16' }), { message: /DEMAND_IPV6_PREFIX must be >= 32/ });
  const peers = loadConfig({ FEDERATION_REFRESH_SECONDS: '30', FEDERATION_CACHE_DIR: '/var/cache/3gs', FEDERATION_ALLOW_LOOPBACK_HTTP: 'true' });
  t.same([peers.federationRefreshMs, peers.federationCacheDir, peers.federationAllowLoopbackHttp], [30_000, '/var/cache/3gs', true]);
  t.throws(() => loadConfig({ FEDERATION_ALLOW_LOOPBACK_HTTP: 'yes' }), { message: /FEDERATION_ALLOW_LOOPBACK_HTTP must be one of true, false/ });
  const ops = loadConfig({
    REDIS_URL: 'redis://:secret@10.0.0.5:6380/2',
    RATE_LIMIT_MAX: '0',
    RATE_LIMIT_WINDOW_MS: '5000',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    MAX_HEAP_USED_MB: '512',
    TRUST_PROXY: '10.0.0.0/8, 192.168.1.10, ::1, fd00::/64',
    SHUTDOWN_GRACE_MS: '3000',
    CONNECTION_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '2000',
    KEEP_ALIVE_TIMEOUT_MS: '3000',
  });
  t.same(
    [
      ops.redisUrl,
      ops.rateLimitMax,
      ops.rateLimitWindowMs,
      ops.maxEventLoopDelayMs,
      ops.maxHeapUsedBytes,
      ops.trustProxy,
      ops.shutdownGraceMs,
      ops.connectionTimeoutMs,
      ops.requestTimeoutMs,
      ops.keepAliveTimeoutMs,
    ],
    ['redis://:secret@10.0.0.5:6380/2', 0, 5000, 0, 512 * 1024 * 1024, ['10.0.0.0/8', '192.168.1.10', '::1', 'fd00::/64'], 3000, 1000, 2000, 3000]
  );
});

t.test('an invalid value names the variable and the rule', async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'abc' }, /^invalid configuration: PORT must be integer \(got "abc"\)$/],
    [{ PORT: '70000' }, /PORT must be <= 65535/],
    [{ PORT: '-1' }, /PORT must be >= 0/],
    [{ MATCH_THRESHOLD: '1.5' }, /MATCH_THRESHOLD must be <= 1/],
    [{ MATCH_THRESHOLD: 'high' }, /MATCH_THRESHOLD must be number/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
    [{ SESSION_TTL_SECONDS: '0' }, /SESSION_TTL_SECONDS must be >= 1/],
    [{ MAX_SESSIONS: '1.5' }, /MAX_SESSIONS must be integer/],
    [{ ALLOWED_ORIGINS: 'example.com' }, /^invalid configuration: ALLOWED_ORIGINS must be a comma-separated list of origins like https:\/\/app\.example\.com \(got "example\.com"\)$/],
    [{ ALLOWED_ORIGINS: 'https://a.example.com/path' }, /ALLOWED_ORIGINS/],
    [{ RATE_LIMIT_WINDOW_MS: '10' }, /RATE_LIMIT_WINDOW_MS must be >= 1000/],
    [{ TRUST_PROXY: '2' }, /TRUST_PROXY must be a comma-separated list of IP addresses or CIDR ranges \(got "2"\)/],
    [{ TRUST_PROXY: '10.0.0.0/8/1' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY .*\(got "10\.0\.0\.0\/33"\)/],
    [{ TRUST_PROXY: '::/129' }, /TRUST_PROXY .*\(got "::\/129"\)/],
    [{ SHUTDOWN_GRACE_MS: 'soon' }, /SHUTDOWN_GRACE_MS must be integer/],
    [{ REDIS_URL: 'http://:hunter2@cache:6379' }, /^invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL, e.g. redis:\/\/127.0.0.1:6379$/],
    [{ REDIS_URL: 'hunter2@cache' }, /^invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL, e.g. redis:\/\/127.0.0.1:6379$/],
  ];
  for (const [env, message] of cases) {
    t.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
    t.throws(() => loadConfig(env), { message }, JSON.stringify(env));
  }
});

t.test('every invalid variable is reported at once, one line each, in the order of the table', async (t) => {
  const env = {
    PORT: 'abc',
    LOG_LEVEL: 'loud',
    HOST: 'fine.example',
    MATCH_THRESHOLD: '2',
    ALLOWED_ORIGINS: 'x, https://ok.example.com, y',
    TRUST_PROXY: 'nine',
    REDIS_URL: 'http://:hunter2@cache:6379',
    CURATOR_SECRET_KEY: 'deadbeef-not-a-key',
  };
  const message = problemsFor(env);
  t.same(message.split('\n'), [
    'invalid configuration: PORT must be integer (got "abc")',
    'invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    'invalid configuration: MATCH_THRESHOLD must be <= 1 (got "2")',
    'invalid configuration: ALLOWED_ORIGINS must be a comma-separated list of origins like https://app.example.com (got "x", "y")',
    'invalid configuration: CURATOR_SECRET_KEY must be 64 hexadecimal characters (the 32-byte Ed25519 seed that keygen writes)',
    'invalid configuration: REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379',
    'invalid configuration: TRUST_PROXY must be a comma-separated list of IP addresses or CIDR ranges (got "nine")',
  ]);
  t.notMatch(message, /hunter2|deadbeef/, 'no secret is repeated');
});

t.test('the curator key comes from CURATOR_SECRET_KEY or CURATOR_KEY_FILE, never echoed', async (t) => {
  const hex = 'ab'.repeat(32);
  t.same(loadConfig({ CURATOR_SECRET_KEY: hex }).curatorSeed, Buffer.from(hex, 'hex'));
  t.equal(loadConfig({}).curatorSeed, undefined, 'none: the app makes an ephemeral key');
  const dir = await mkdtemp(join(tmpdir(), '3gs-config-'));
  const file = join(dir, 'key');
  await writeFile(file, `${hex}\n`);
  t.same(loadConfig({ CURATOR_KEY_FILE: file }).curatorSeed, Buffer.from(hex, 'hex'));
  const secret = 'cd'.repeat(31);
  t.throws(() => loadConfig({ CURATOR_SECRET_KEY: secret }), { message: /^invalid configuration: CURATOR_SECRET_KEY must be 64 hexadecimal characters/ });
  t.notMatch(problemsFor({ CURATOR_SECRET_KEY: secret }), secret, 'the value is not in the message');
  t.throws(() => loadConfig({ CURATOR_SECRET_KEY: hex, CURATOR_KEY_FILE: file }), { message: /^invalid configuration: set CURATOR_SECRET_KEY or CURATOR_KEY_FILE, not both$/ });
  t.throws(() => loadConfig({ CURATOR_KEY_FILE: join(dir, 'missing') }), { message: /CURATOR_KEY_FILE cannot be read \(ENOENT\)/ });
  const almost = 'ef'.repeat(31);
  await writeFile(join(dir, 'bad'), almost);
  t.throws(() => loadConfig({ CURATOR_KEY_FILE: join(dir, 'bad') }), { message: /the file named by CURATOR_KEY_FILE must be 64 hexadecimal characters/ });
  t.notMatch(problemsFor({ CURATOR_KEY_FILE: join(dir, 'bad') }), almost, 'the content is not in the message');
});

t.test('CURATOR_PUBKEY: a z-base-32 public key, never together with a secret key', async (t) => {
  t.equal(loadConfig({ CURATOR_PUBKEY: TEST_PUBLIC_KEY }).curatorPubkey, TEST_PUBLIC_KEY);
  t.equal(loadConfig({}).curatorPubkey, undefined);
  t.throws(() => loadConfig({ CURATOR_PUBKEY: 'abc' }), { message: /^invalid configuration: CURATOR_PUBKEY must be a z-base-32 Ed25519 public key, 52 characters, as keygen prints it \(got "abc"\)$/ });
  t.throws(() => loadConfig({ CURATOR_PUBKEY: TEST_PUBLIC_KEY, CURATOR_SECRET_KEY: '07'.repeat(32) }), {
    message: /^invalid configuration: set CURATOR_PUBKEY \(verify the curator's signature, no secret here\) or CURATOR_SECRET_KEY\/CURATOR_KEY_FILE \(sign here\), not both$/,
  });
});

t.test("the operators' configuration table (docs/operators.md) is the one in src/config.ts", async (t) => {
  const readme = await readFile(join(ROOT, 'docs', 'operators.md'), 'utf8');
  const section = /\n## Configuration\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  const shown = (v: Variable): string =>
    v.shownDefault ?? (v.default === undefined ? 'none' : v.default === '' ? 'empty' : `\`${v.default}\``);
  const expected = Object.entries(VARIABLES).map(([name, v]) => `| \`${name}\` | ${shown(v)} | ${v.meaning} |`);
  t.same(rows, expected);
});

t.test('PUBLIC_URL: an http or https origin; a path, a query, credentials or another scheme is refused naming the variable (issue 31, finding 4)', async (t) => {
  t.equal(loadConfig({ PUBLIC_URL: 'http://3gs.example.org:8080' }).publicUrl, 'http://3gs.example.org:8080');
  t.equal(loadConfig({}).publicUrl, undefined, 'unset: from the request');
  for (const bad of ['3gs.example.org', 'ftp://3gs.example.org', 'https://3gs.example.org/mcp', 'https://u:p@3gs.example.org', 'https://3gs.example.org?x=1']) {
    t.throws(() => loadConfig({ PUBLIC_URL: bad }), { message: /^invalid configuration: PUBLIC_URL must be an http or https origin like https:\/\/3gs\.example\.org, without path, query or credentials \(got ".*"\)$/ }, bad);
  }
});

t.test('ALLOWED_HOSTS: host names, lowercased; anything with a scheme, port or path is refused naming the variable (issue 24, item 2)', async (t) => {
  t.same(loadConfig({ ALLOWED_HOSTS: ' 3GS.example.org, mirror.example.net ' }).allowedHosts, ['3gs.example.org', 'mirror.example.net']);
  t.same(loadConfig({}).allowedHosts, []);
  t.throws(() => loadConfig({ ALLOWED_HOSTS: 'https://3gs.example.org,3gs.example.org:443,a/b' }), {
    message: /^invalid configuration: ALLOWED_HOSTS must be a comma-separated list of host names like 3gs\.example\.org, without scheme, port or path \(got "https:\/\/3gs\.example\.org", "3gs\.example\.org:443", "a\/b"\)$/,
  });
});
