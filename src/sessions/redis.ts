import { Redis, type ChainableCommander } from 'ioredis';
import { StartupError } from '../errors.js';
import { newSessionId, SessionStoreUnavailable, type SessionState, type SessionStore } from './store.js';

export interface RedisSessionOptions {
  readonly url: string;
  readonly ttlMs: number;
  readonly maxSessions: number;
  /** Key prefix, so that several deployments can share one Redis. */
  readonly prefix?: string;
  /** How long start-up waits for Redis before giving up. */
  readonly connectTimeoutMs?: number;
  /** Told once when Redis is lost and once when it is back, for the operator's log. */
  readonly onAvailability?: (event: AvailabilityEvent) => void;
}

/** Redis went away (with the reason ioredis gave) or came back. */
export type AvailabilityEvent = { readonly available: false; readonly reason: string } | { readonly available: true };

/** Start-up could not reach Redis; the message names the host, never the password. */
export class RedisUnreachable extends StartupError {
  constructor (where: string, reason: string) {
    super('THREEGS_REDIS_UNREACHABLE', `cannot connect to Redis at ${where} (REDIS_URL): ${reason}`);
    this.name = 'RedisUnreachable';
  }
}

/** What ioredis last reported as an error (it reports every failed reconnect): the reason told to the operator. */
export interface LastRedisError {
  last: { code?: string; message?: string } | undefined;
}

/**
 * A connected ioredis client as the stores use it: commands fail fast while Redis is away (no
 * offline queue) and the client reconnects by itself, every 2 s at most. Throws RedisUnreachable,
 * naming the host and never the password, when start-up cannot reach Redis.
 */
export async function openRedis (url: string, connectTimeoutMs = 5000): Promise<{ redis: Redis; errors: LastRedisError }> {
  const { hostname, port } = new URL(url);
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 2000,
    connectTimeout: connectTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  const errors: LastRedisError = { last: undefined };
  redis.on('error', (err: { code?: string; message?: string }) => (errors.last = err));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new RedisUnreachable(`${hostname}:${port || '6379'}`, errors.last?.code ?? (err as { code?: string }).code ?? (err as Error).message);
  }
  return { redis, errors };
}

/**
 * A clock shared by every replica and strictly increasing: Redis's own TIME in microseconds,
 * or one more than the last value handed out. Two sessions created in the same microsecond (or
 * millisecond, as Date.now() scored them before) would tie in the index, and ZPOPMIN would
 * evict whichever id sorts first instead of the least recently used.
 */
const clock = (key: string) => `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(redis.call('GET', ${key}) or '0')
if now <= last then now = last + 1 end
redis.call('SET', ${key}, now)
`;

/**
 * One script, so that creating, indexing, dropping the expired and evicting past the cap happen
 * as one step: no other replica's session can slip in between. Evicted session keys are built
 * from the prefix inside the script (fine on a single Redis; a cluster would need hash tags).
 * KEYS: session key, index, clock. ARGV: state, ttl ms, id, max sessions, key prefix.
 */
const CREATE = `${clock('KEYS[3]')}
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], now, ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[2]) * 1000)
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if excess > 0 then
  local popped = redis.call('ZPOPMIN', KEYS[2], excess)
  for i = 1, #popped, 2 do redis.call('DEL', ARGV[5] .. popped[i]) end
end
return excess`;

/** Reads a session and marks it used, in one round trip. KEYS: session key, index, clock. ARGV: ttl ms, id. */
const TOUCH = `
local state = redis.call('GET', KEYS[1])
if not state then return false end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
${clock('KEYS[3]')}
redis.call('ZADD', KEYS[2], 'XX', now, ARGV[2])
return state`;

/** Forgets expired sessions and counts the rest. KEYS: index, clock. ARGV: ttl ms. */
const COUNT = `${clock('KEYS[2]')}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]) * 1000)
return redis.call('ZCARD', KEYS[1])`;

interface SessionScripts {
  threegsCreate(session: string, index: string, clock: string, state: string, ttlMs: number, id: string, max: number, prefix: string): Promise<number>;
  threegsTouch(session: string, index: string, clock: string, ttlMs: number, id: string): Promise<string | null>;
  threegsCount(index: string, clock: string, ttlMs: number): Promise<number>;
}

/**
 * Sessions in Redis, shared by every replica. Each session is a key that expires after the idle
 * TTL (refreshed on use); a sorted index of last use, on a strictly increasing clock, keeps the
 * count and lets the cap evict exactly the least recently used, so nothing grows without bound.
 * Commands fail fast while Redis is away (no offline queue): callers get SessionStoreUnavailable
 * and answer 503, and the client reconnects by itself when Redis returns.
 */
export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis';
  readonly #redis: Redis & SessionScripts;
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #prefix: string;
  readonly #index: string;
  readonly #clock: string;
  readonly #sessions: string;
  #closing = false;

  private constructor (redis: Redis & SessionScripts, options: RedisSessionOptions) {
    this.#redis = redis;
    this.#ttlMs = options.ttlMs;
    this.#max = options.maxSessions;
    this.#prefix = options.prefix ?? '3gs:session:';
    // Sessions get a namespace of their own: a client's Mcp-Session-Id (any visible ASCII) can
    // then never name the index or the clock.
    this.#index = `${this.#prefix}index`;
    this.#clock = `${this.#prefix}clock`;
    this.#sessions = `${this.#prefix}s:`;
  }

  /** Connects, or throws RedisUnreachable: a server that cannot keep sessions must not start. */
  static async connect (options: RedisSessionOptions): Promise<RedisSessionStore> {
    // The server recovers by itself when Redis returns; the operator is told once per outage, not once per retry.
    const { redis, errors } = await openRedis(options.url, options.connectTimeoutMs);
    redis.defineCommand('threegsCreate', { numberOfKeys: 3, lua: CREATE });
    redis.defineCommand('threegsTouch', { numberOfKeys: 3, lua: TOUCH });
    redis.defineCommand('threegsCount', { numberOfKeys: 2, lua: COUNT });
    const store = new RedisSessionStore(redis as Redis & SessionScripts, options);
    const report = options.onAvailability;
    if (report !== undefined) {
      let available = true;
      redis.on('close', () => {
        if (!available || store.#closing) return;
        available = false;
        report({ available: false, reason: errors.last?.code ?? 'connection closed' });
      });
      redis.on('ready', () => {
        errors.last = undefined;
        if (available) return;
        available = true;
        report({ available: true });
      });
    }
    return store;
  }

  async #run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw new SessionStoreUnavailable(err);
    }
  }

  /** Runs a transaction and returns its results, throwing the first command error. */
  async #exec (batch: ChainableCommander): Promise<unknown[]> {
    const results = await batch.exec();
    if (results === null) throw new Error('transaction aborted');
    const failed = results.find(([err]) => err !== null);
    if (failed) throw failed[0];
    return results.map(([, value]) => value);
  }

  #key (id: string): string {
    return `${this.#sessions}${id}`;
  }

  async create (state: SessionState): Promise<string> {
    const id = newSessionId();
    return this.#run(async () => {
      await this.#redis.threegsCreate(this.#key(id), this.#index, this.#clock, JSON.stringify(state), this.#ttlMs, id, this.#max, this.#sessions);
      return id;
    });
  }

  async get (id: string): Promise<SessionState | undefined> {
    return this.#run(async () => {
      // Only a live session counts as used: an expired one must not come back into the index.
      const text = await this.#redis.threegsTouch(this.#key(id), this.#index, this.#clock, this.#ttlMs, id);
      return typeof text === 'string' ? (JSON.parse(text) as SessionState) : undefined;
    });
  }

  async update (id: string, state: SessionState): Promise<boolean> {
    return this.#run(async () => (await this.#redis.set(this.#key(id), JSON.stringify(state), 'PX', this.#ttlMs, 'XX')) === 'OK');
  }

  async delete (id: string): Promise<boolean> {
    return this.#run(async () => {
      const [removed] = await this.#exec(this.#redis.multi().del(this.#key(id)).zrem(this.#index, id));
      return removed === 1;
    });
  }

  async size (): Promise<number> {
    return this.#run(() => this.#redis.threegsCount(this.#index, this.#clock, this.#ttlMs));
  }

  async ping (): Promise<boolean> {
    try {
      return (await this.#redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close (): Promise<void> {
    this.#closing = true;
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
