import { createHmac, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisUnreachable } from '../sessions/redis.js';
import type { Asked } from './asked.js';
import { bucketOf, DAY_MS, dayOf, newSalt } from './client-bucket.js';
import { bitsSet } from './space-saving.js';
import type { DemandLimits, DemandStore, ShownItem, Snapshot } from './store.js';

export interface RedisDemandOptions extends DemandLimits {
  readonly url: string;
  /** Key prefix, so that several deployments can share one Redis. */
  readonly prefix?: string;
  /** How often counts gathered here are added to Redis. */
  readonly flushMs?: number;
}

/** Items gathered between two flushes, at most: beyond it a flush is due at once and new items wait for it (dropped if it fails). */
export const MAX_PENDING_ITEMS = 20_000;

/**
 * One day's batch, added in one step so that replicas never interleave halfway. Space-Saving as in
 * space-saving.ts, on a sorted set of item hashes (score: count; an evicted item's count becomes
 * the newcomer's error); each item's client buckets in a bitmap of its own, expiring with the
 * day. Returns the items that reached k buckets and have no text yet: only their text is then
 * sent, so no text of an item below k ever reaches Redis (not even in a command's arguments).
 * ARGV: key base of the day, expiry (unix seconds), capacity, k, number of total pairs, the
 * pairs (field, count), then per item: hash, count, buckets ("3,17,40").
 */
const RECORD = `
local base, at, cap, k = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local totals, items, err, text = base .. 'totals', base .. 'items', base .. 'error', base .. 'text'
local i = 6
for _ = 1, tonumber(ARGV[5]) do
  redis.call('HINCRBY', totals, ARGV[i], tonumber(ARGV[i + 1]))
  i = i + 2
end
local reveal = {}
while i <= #ARGV do
  local h, n, buckets = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  i = i + 3
  if redis.call('ZSCORE', items, h) then
    redis.call('ZINCRBY', items, n, h)
  elseif redis.call('ZCARD', items) < cap then
    redis.call('ZADD', items, n, h)
  else
    local least = redis.call('ZPOPMIN', items)
    local gone, min = least[1], tonumber(least[2])
    redis.call('DEL', base .. 'bits:' .. gone)
    redis.call('HDEL', err, gone)
    redis.call('HDEL', text, gone)
    redis.call('ZADD', items, min + n, h)
    redis.call('HSET', err, h, min)
  end
  local bits = base .. 'bits:' .. h
  for b in string.gmatch(buckets, '%d+') do redis.call('SETBIT', bits, tonumber(b), 1) end
  redis.call('EXPIREAT', bits, at)
  if redis.call('HEXISTS', text, h) == 0 and redis.call('BITCOUNT', bits) >= k then reveal[#reveal + 1] = h end
end
for _, key in ipairs({ totals, items, err }) do
  if redis.call('EXISTS', key) == 1 then redis.call('EXPIREAT', key, at) end
end
return reveal`;

interface Pending {
  readonly totals: Map<string, number>;
  readonly items: Map<string, { count: number; buckets: Set<number> }>;
}

interface DemandScripts {
  threegsDemandRecord(...args: (string | number)[]): Promise<string[]>;
}

/**
 * Demand counts in Redis, shared by every replica and kept across restarts; each day's keys expire
 * when the day leaves the window. Requests are gathered in memory (words and buckets, never an
 * address) and added every second; while Redis is away those batches are lost, not queued.
 */
export class RedisDemandStore implements DemandStore {
  readonly kind = 'redis';
  readonly #redis: Redis & DemandScripts;
  readonly #limits: RedisDemandOptions;
  readonly #prefix: string;
  readonly #now: () => number;
  /** The key items are hashed with before they name anything in Redis (shared by the replicas). */
  readonly #itemKey: string;
  readonly #salts = new Map<number, string>();
  #pending = new Map<number, Pending>();
  #pendingItems = 0;
  #flushing: Promise<void> = Promise.resolve();
  readonly #timer: NodeJS.Timeout;

  private constructor(redis: Redis & DemandScripts, options: RedisDemandOptions, itemKey: string) {
    this.#redis = redis;
    this.#limits = options;
    this.#prefix = options.prefix ?? '3gs:demand:';
    this.#now = options.now ?? Date.now;
    this.#itemKey = itemKey;
    this.#timer = setInterval(() => void this.flush(), options.flushMs ?? 1000);
    this.#timer.unref();
  }

  /** Connects, or throws RedisUnreachable. */
  static async connect(options: RedisDemandOptions): Promise<RedisDemandStore> {
    const url = new URL(options.url);
    const redis = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 2000,
      connectTimeout: 5000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    redis.defineCommand('threegsDemandRecord', { numberOfKeys: 0, lua: RECORD });
    let lastError: { code?: string } | undefined;
    // The session store's connection tells the operator of outages; this one only keeps the reason.
    redis.on('error', (err: { code?: string }) => (lastError = err));
    const prefix = options.prefix ?? '3gs:demand:';
    try {
      await redis.connect();
      await redis.set(`${prefix}key`, randomBytes(32).toString('hex'), 'NX');
      const itemKey = (await redis.get(`${prefix}key`))!;
      const store = new RedisDemandStore(redis as Redis & DemandScripts, options, itemKey);
      await store.#loadSalts();
      return store;
    } catch (err) {
      redis.disconnect();
      throw new RedisUnreachable(`${url.hostname}:${url.port || '6379'}`, lastError?.code ?? (err as Error).message);
    }
  }

  /**
   * The salts of today and tomorrow, made by whichever replica comes first and shared; each is
   * deleted by Redis an hour after its day ends (the rotation). Loaded ahead, so that recording
   * never waits for one.
   */
  async #loadSalts(): Promise<void> {
    const today = dayOf(this.#now());
    for (const day of [today, today + 1]) {
      if (this.#salts.has(day)) continue;
      const key = `${this.#prefix}salt:${day}`;
      await this.#redis.set(key, newSalt(), 'EXAT', Math.floor(((day + 1) * DAY_MS) / 1000) + 3600, 'NX');
      const salt = await this.#redis.get(key);
      if (salt !== null) this.#salts.set(day, salt);
    }
    for (const day of this.#salts.keys()) if (day < today) this.#salts.delete(day);
  }

  record(asked: Asked, client: string): void {
    const today = dayOf(this.#now());
    let day = this.#pending.get(today);
    if (day === undefined) this.#pending.set(today, (day = { totals: new Map(), items: new Map() }));
    for (const t of asked.totals) day.totals.set(t, (day.totals.get(t) ?? 0) + 1);
    if (asked.items.length === 0) return;
    const salt = this.#salts.get(today);
    // Without the day's shared salt (Redis away at midnight) a bucket could not be compared with the other replicas': the words are not counted.
    if (salt === undefined) return void this.#loadSalts().catch(() => undefined);
    const bucket = bucketOf(salt, client);
    for (const key of asked.items) {
      let item = day.items.get(key);
      if (item === undefined) {
        if (this.#pendingItems >= MAX_PENDING_ITEMS) continue;
        this.#pendingItems++;
        day.items.set(key, (item = { count: 0, buckets: new Set() }));
      }
      item.count++;
      item.buckets.add(bucket);
    }
    if (this.#pendingItems >= MAX_PENDING_ITEMS) void this.flush();
  }

  /** Adds what was gathered to Redis; one flush at a time. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flush());
    return this.#flushing;
  }

  async #flush(): Promise<void> {
    const batches = this.#pending;
    this.#pending = new Map();
    this.#pendingItems = 0;
    try {
      for (const [day, batch] of batches) await this.#add(day, batch);
      await this.#loadSalts();
    } catch {
      // Redis away: this batch is lost (counts are a signal, not a ledger); the next one tries again.
    }
  }

  #base(day: number): string {
    return `${this.#prefix}d:${day}:`;
  }

  #hash(item: string): string {
    return createHmac('sha256', this.#itemKey).update(item).digest('hex').slice(0, 24);
  }

  async #add(day: number, batch: Pending): Promise<void> {
    const base = this.#base(day);
    const expireAt = Math.floor(((day + this.#limits.windowDays) * DAY_MS) / 1000);
    const texts = new Map<string, string>();
    const args: (string | number)[] = [base, expireAt, this.#limits.itemsPerDay, this.#limits.minClients, batch.totals.size];
    for (const [field, n] of batch.totals) args.push(field, n);
    for (const [item, { count, buckets }] of batch.items) {
      const h = this.#hash(item);
      texts.set(h, item);
      args.push(h, count, [...buckets].join(','));
    }
    const reveal = await this.#redis.threegsDemandRecord(...args);
    if (reveal.length === 0) return;
    const text = `${base}text`;
    await this.#redis.multi().hset(text, Object.fromEntries(reveal.map((h) => [h, texts.get(h)!]))).expireat(text, expireAt).exec();
  }

  async snapshot(): Promise<Snapshot> {
    await this.flush();
    const toDay = dayOf(this.#now());
    const fromDay = toDay - this.#limits.windowDays + 1;
    const days: number[] = [];
    for (let d = fromDay; d <= toDay; d++) days.push(d);
    const read = this.#redis.pipeline();
    for (const d of days) {
      const base = this.#base(d);
      read.hgetall(`${base}totals`).zrange(`${base}items`, 0, -1, 'WITHSCORES').hgetall(`${base}error`).hgetall(`${base}text`);
    }
    const results = await read.exec();
    const failed = results?.find(([err]) => err !== null);
    if (results === null || failed !== undefined) throw failed?.[0] ?? new Error('Redis pipeline failed');
    const totals: Record<string, number> = {};
    const texts = new Map<string, string>();
    const perDay: { day: number; counts: Map<string, number> }[] = [];
    days.forEach((day, i) => {
      const [dayTotals, ranked, errors, dayTexts] = results.slice(i * 4, i * 4 + 4).map(([, v]) => v) as [Record<string, string>, string[], Record<string, string>, Record<string, string>];
      for (const [field, n] of Object.entries(dayTotals)) totals[field] = (totals[field] ?? 0) + Number(n);
      for (const [h, t] of Object.entries(dayTexts)) texts.set(h, t);
      const counts = new Map<string, number>();
      for (let j = 0; j < ranked.length; j += 2) counts.set(ranked[j]!, Number(ranked[j + 1]) - Number(errors[ranked[j]!] ?? 0));
      perDay.push({ day, counts });
    });
    // Buckets of the shown items only, on every day they were counted.
    const bits = this.#redis.pipeline();
    const asked: { h: string; asks: number }[] = [];
    for (const { day, counts } of perDay) {
      for (const [h, n] of counts) {
        if (!texts.has(h)) continue;
        bits.bitcount(`${this.#base(day)}bits:${h}`);
        asked.push({ h, asks: n });
      }
    }
    const counted = asked.length === 0 ? [] : ((await bits.exec()) ?? []);
    const sums = new Map<string, { asks: number; clients: number }>();
    asked.forEach(({ h, asks }, i) => {
      const sum = sums.get(h) ?? { asks: 0, clients: 0 };
      sum.asks += asks;
      sum.clients += Number(counted[i]?.[1] ?? 0);
      sums.set(h, sum);
    });
    const items: ShownItem[] = [...sums].map(([h, s]) => ({ key: texts.get(h)!, ...s }));
    return { fromDay, toDay, totals, items };
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

/** Bits set in a bitmap of 64 buckets, for tests that read Redis directly. */
export const bucketsIn = (bitmap: Buffer): number => [...bitmap].reduce((n, byte) => n + bitsSet(byte), 0);
