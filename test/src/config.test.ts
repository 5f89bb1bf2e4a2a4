import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

t.test('defaults: 127.0.0.1:3000, the shipped registry, info logs, threshold 0.4', async (t) => {
  const c = loadConfig({});
  t.equal(c.host, '127.0.0.1');
  t.equal(c.port, 3000);
  t.match(c.registryPath, /registry\.json$/);
  t.equal(c.logLevel, 'info');
  t.equal(c.matchThreshold, 0.4);
  t.same(c.allowedOrigins, []);
  t.equal(c.sessionTtlMs, 30 * 60 * 1000);
  t.equal(c.maxSessions, 10_000);
});

t.test('every variable is read', async (t) => {
  const c = loadConfig({
    HOST: '0.0.0.0', PORT: '8080', REGISTRY_PATH: '/tmp/r.json', LOG_LEVEL: 'debug', MATCH_THRESHOLD: '0.55',
    ALLOWED_ORIGINS: 'https://a.example.com, http://b.example.org:8080/', SESSION_TTL_SECONDS: '60', MAX_SESSIONS: '5',
  });
  t.same(c, {
    host: '0.0.0.0', port: 8080, registryPath: '/tmp/r.json', logLevel: 'debug', matchThreshold: 0.55,
    allowedOrigins: ['https://a.example.com', 'http://b.example.org:8080'], sessionTtlMs: 60_000, maxSessions: 5, curatorSeed: undefined,
    redisUrl: undefined, rateLimitMax: 600, rateLimitWindowMs: 60_000, maxEventLoopDelayMs: 1000, maxHeapUsedBytes: 0, trustProxy: [],
    shutdownGraceMs: 10_000, connectionTimeoutMs: 30_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000,
  });
  const ops = loadConfig({
    REDIS_URL: 'redis://:secret@10.0.0.5:6380/2', RATE_LIMIT_MAX: '0', RATE_LIMIT_WINDOW_MS: '5000', MAX_EVENT_LOOP_DELAY_MS: '0',
    MAX_HEAP_USED_MB: '512', TRUST_PROXY: '10.0.0.0/8, 192.168.1.10, ::1', SHUTDOWN_GRACE_MS: '3000', CONNECTION_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '2000', KEEP_ALIVE_TIMEOUT_MS: '3000',
  });
  t.same(
    [ops.redisUrl, ops.rateLimitMax, ops.rateLimitWindowMs, ops.maxEventLoopDelayMs, ops.maxHeapUsedBytes, ops.trustProxy, ops.shutdownGraceMs, ops.connectionTimeoutMs, ops.requestTimeoutMs, ops.keepAliveTimeoutMs],
    ['redis://:secret@10.0.0.5:6380/2', 0, 5000, 0, 512 * 1024 * 1024, ['10.0.0.0/8', '192.168.1.10', '::1'], 3000, 1000, 2000, 3000],
  );
  t.equal(loadConfig({ PORT: '' }).port, 3000, 'an empty variable takes the default');
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
    [{ ALLOWED_ORIGINS: 'example.com' }, /ALLOWED_ORIGINS must be a comma-separated list of origins/],
    [{ ALLOWED_ORIGINS: 'https://a.example.com/path' }, /ALLOWED_ORIGINS/],
    [{ RATE_LIMIT_WINDOW_MS: '10' }, /RATE_LIMIT_WINDOW_MS must be >= 1000/],
    [{ TRUST_PROXY: '2' }, /TRUST_PROXY must be a comma-separated list of IP addresses or CIDR ranges \(got "2"\)/],
    [{ TRUST_PROXY: '10.0.0.0/8/1' }, /TRUST_PROXY/],
    [{ SHUTDOWN_GRACE_MS: 'soon' }, /SHUTDOWN_GRACE_MS must be integer/],
    [{ REDIS_URL: 'http://:hunter2@cache:6379' }, /^invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL, e.g. redis:\/\/127.0.0.1:6379$/],
  ];
  for (const [env, message] of cases) {
    t.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
    t.throws(() => loadConfig(env), { message }, JSON.stringify(env));
  }
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
  try {
    loadConfig({ CURATOR_SECRET_KEY: secret });
  } catch (err) {
    t.notMatch((err as Error).message, secret, 'the value is not in the message');
  }
  t.throws(() => loadConfig({ CURATOR_SECRET_KEY: hex, CURATOR_KEY_FILE: file }), { message: /set CURATOR_SECRET_KEY or CURATOR_KEY_FILE, not both/ });
  t.throws(() => loadConfig({ CURATOR_KEY_FILE: join(dir, 'missing') }), { message: /CURATOR_KEY_FILE cannot be read \(ENOENT\)/ });
  await writeFile(join(dir, 'bad'), 'hello');
  t.throws(() => loadConfig({ CURATOR_KEY_FILE: join(dir, 'bad') }), { message: /the file named by CURATOR_KEY_FILE must be 64 hexadecimal characters/ });
});
