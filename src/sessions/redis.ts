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
}

/** Start-up could not reach Redis; the message names the host, never the password. */
export class RedisUnreachable extends StartupError {
  constructor(where: string, reason: string) {
    super('THREEGS_REDIS_UNREACHABLE', `cannot connect to Redis at ${where} (REDIS_URL): ${reason}`);
    this.name = 'RedisUnreachable';
  }
}

/**
 * Sessions in Redis, shared by every replica. Each session is a key that expires after the idle
 * TTL (refreshed on use with GETEX); a sorted set of last-use times keeps the count and lets the
 * cap evict the least recently used, so nothing grows without bound. Commands fail fast while
 * Redis is away (no offline queue): callers get SessionStoreUnavailable and answer 503, and the
 * client reconnects by itself when Redis returns.
 */
export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis';
  readonly #redis: Redis;
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #prefix: string;
  readonly #index: string;

  private constructor(redis: Redis, options: RedisSessionOptions) {
    this.#redis = redis;
    this.#ttlMs = options.ttlMs;
    this.#max = options.maxSessions;
    this.#prefix = options.prefix ?? '3gs:session:';
    this.#index = `${this.#prefix}index`;
  }

  /** Connects, or throws RedisUnreachable: a server that cannot keep sessions must not start. */
  static async connect(options: RedisSessionOptions): Promise<RedisSessionStore> {
    const url = new URL(options.url);
    const where = `${url.hostname}:${url.port || '6379'}`;
    const redis = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 2000,
      connectTimeout: options.connectTimeoutMs ?? 5000,
      // Keep trying forever, at most every 2 s: the server recovers by itself when Redis returns.
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    // ioredis reports every failed reconnect as an 'error' event; requests already say 503.
    let lastError: { code?: string } | undefined;
    redis.on('error', (err: { code?: string }) => (lastError = err));
    try {
      await redis.connect();
      await redis.ping();
    } catch (err) {
      redis.disconnect();
      throw new RedisUnreachable(where, lastError?.code ?? (err as { code?: string }).code ?? (err as Error).message);
    }
    return new RedisSessionStore(redis, options);
  }

  async #run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw new SessionStoreUnavailable(err);
    }
  }

  /** Runs a pipeline or transaction and returns its results, throwing the first command error. */
  async #exec(batch: ChainableCommander): Promise<unknown[]> {
    const results = await batch.exec();
    if (results === null) throw new Error('transaction aborted');
    const failed = results.find(([err]) => err !== null);
    if (failed) throw failed[0];
    return results.map(([, value]) => value);
  }

  #key(id: string): string {
    return `${this.#prefix}${id}`;
  }

  async create(state: SessionState): Promise<string> {
    const id = newSessionId();
    const now = Date.now();
    return this.#run(async () => {
      await this.#exec(
        this.#redis
          .multi()
          .set(this.#key(id), JSON.stringify(state), 'PX', this.#ttlMs)
          .zadd(this.#index, now, id)
          .zremrangebyscore(this.#index, '-inf', now - this.#ttlMs),
      );
      const excess = (await this.#redis.zcard(this.#index)) - this.#max;
      if (excess > 0) {
        const evicted = await this.#redis.zpopmin(this.#index, excess);
        const ids = evicted.filter((_, i) => i % 2 === 0);
        if (ids.length > 0) await this.#redis.del(...ids.map((x) => this.#key(x)));
      }
      return id;
    });
  }

  async get(id: string): Promise<SessionState | undefined> {
    return this.#run(async () => {
      const text = await this.#redis.getex(this.#key(id), 'PX', this.#ttlMs);
      if (typeof text !== 'string') return undefined;
      // Only a live session counts as used: an expired one must not come back into the index.
      await this.#redis.zadd(this.#index, 'XX', Date.now(), id);
      return JSON.parse(text) as SessionState;
    });
  }

  async update(id: string, state: SessionState): Promise<boolean> {
    return this.#run(async () => (await this.#redis.set(this.#key(id), JSON.stringify(state), 'PX', this.#ttlMs, 'XX')) === 'OK');
  }

  async delete(id: string): Promise<boolean> {
    return this.#run(async () => {
      const [removed] = await this.#exec(this.#redis.multi().del(this.#key(id)).zrem(this.#index, id));
      return removed === 1;
    });
  }

  async size(): Promise<number> {
    return this.#run(async () => {
      await this.#redis.zremrangebyscore(this.#index, '-inf', Date.now() - this.#ttlMs);
      return this.#redis.zcard(this.#index);
    });
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.#redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
