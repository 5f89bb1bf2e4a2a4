import { createHmac } from 'node:crypto';
import type { Redis } from 'ioredis';
import { openRedis } from '../sessions/redis.js';
import { letEventLoopRun } from '../util/event-loop.js';
import type { Asked } from './asked.js';
import { DAY_MS, DailySalt, dayOf } from './client-bucket.js';
import type { DemandLimits, DemandStore, ShownItem, Snapshot } from './store.js';

export interface RedisDemandOptions extends DemandLimits {
  readonly url: string;
  /**
   * DEMAND_SECRET: shared by the replicas and never written to Redis. The daily salts and the
   * names of counted items are derived from it, so that Redis (or a copy of it) alone can neither
   * test an address against the buckets nor a guessed word against the item names.
   */
  readonly secret: string;
  /** Key prefix, so that several deployments can share one Redis. */
  readonly prefix?: string;
  /** How often counts gathered here are added to Redis. */
  readonly flushMs?: number;
}

/** Items gathered between two flushes, at most: beyond it new items are dropped until the next flush. */
export const MAX_PENDING_ITEMS = 20_000;

/** Items per script call: one call holds Redis (which also serves sessions) for a few milliseconds, not hundreds. */
export const ITEMS_PER_CALL = 1_000;

/**
 * One day's batch, added in one step so that replicas never interleave halfway. Space-Saving as in
 * space-saving.ts, on a sorted set of item hashes (score: count; an evicted item's count becomes
 * the newcomer's error); each item's client buckets in a bitmap of its own, expiring with the
 * day, and how many they are in a hash (the report reads a day's counts in one reply, not one
 * BITCOUNT per item). An item that reaches k buckets moves to a second sorted set, out of eviction's reach (at
 * most capacity there), so a flood of new items cannot push a shown one out. Returns the items
 * that reached k buckets and have no text yet: only their text is then
 * sent, so no text of an item below k ever reaches Redis (not even in a command's arguments).
 * ARGV: key base of the day, expiry (unix seconds), capacity, k, number of total pairs, the
 * pairs (field, count), then per item: hash, count, buckets ("3,17,40").
 */
const RECORD = `
local base, at, cap, k = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local totals, items, kept, err, text, clients = base .. 'totals', base .. 'items', base .. 'kept', base .. 'error', base .. 'text', base .. 'clients'
local i = 6
for _ = 1, tonumber(ARGV[5]) do
  redis.call('HINCRBY', totals, ARGV[i], tonumber(ARGV[i + 1]))
  i = i + 2
end
local reveal = {}
while i <= #ARGV do
  local h, n, buckets = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  i = i + 3
  if redis.call('ZSCORE', kept, h) then
    redis.call('ZINCRBY', kept, n, h)
  elseif redis.call('ZSCORE', items, h) then
    redis.call('ZINCRBY', items, n, h)
  elseif redis.call('ZCARD', items) < cap then
    redis.call('ZADD', items, n, h)
  else
    local least = redis.call('ZPOPMIN', items)
    local gone, min = least[1], tonumber(least[2])
    redis.call('DEL', base .. 'bits:' .. gone)
    redis.call('HDEL', err, gone)
    redis.call('HDEL', text, gone)
    redis.call('HDEL', clients, gone)
    redis.call('ZADD', items, min + n, h)
    redis.call('HSET', err, h, min)
  end
  local bits = base .. 'bits:' .. h
  for b in string.gmatch(buckets, '%d+') do redis.call('SETBIT', bits, tonumber(b), 1) end
  redis.call('EXPIREAT', bits, at)
  local seen = redis.call('BITCOUNT', bits)
  redis.call('HSET', clients, h, seen)
  local shown = seen >= k
  if shown and not redis.call('ZSCORE', kept, h) and redis.call('ZCARD', kept) < cap then
    redis.call('ZADD', kept, redis.call('ZSCORE', items, h), h)
    redis.call('ZREM', items, h)
  end
  if shown and redis.call('HEXISTS', text, h) == 0 then reveal[#reveal + 1] = h end
end
for _, key in ipairs({ totals, items, kept, err, clients }) do
  if redis.call('EXISTS', key) == 1 then redis.call('EXPIREAT', key, at) end
end
return reveal`;

/**
 * One day as the report reads it, in one call: totals, items and kept (hash, count, ...), error,
 * text and clients (hash, value, ...), each a flat list as Redis keeps it (ioredis would turn
 * each HGETALL of thousands of fields into an object, the larger part of reading a day).
 * ARGV: key base of the day.
 */
const READ_DAY = `
local b = ARGV[1]
return {
  redis.call('HGETALL', b .. 'totals'),
  redis.call('ZRANGE', b .. 'items', 0, -1, 'WITHSCORES'),
  redis.call('ZRANGE', b .. 'kept', 0, -1, 'WITHSCORES'),
  redis.call('HGETALL', b .. 'error'),
  redis.call('HGETALL', b .. 'text'),
  redis.call('HGETALL', b .. 'clients')
}`;

/** One day of the window as the report reads it. */
interface DayRead {
  readonly totals: readonly (readonly [string, number])[];
  readonly texts: ReadonlyMap<string, string>;
  /** Per item hash: times asked (less the Space-Saving error) and client buckets seen in. */
  readonly items: ReadonlyMap<string, { asks: number; buckets: number }>;
}

interface Pending {
  readonly totals: Map<string, number>;
  readonly items: Map<string, { count: number; buckets: Set<number> }>;
}

interface DemandScripts {
  threegsDemandRecord(...args: (string | number)[]): Promise<string[]>;
  threegsDemandReadDay(base: string): Promise<[string[], string[], string[], string[], string[], string[]]>;
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
  readonly #secret: string;
  /**
   * The salt of a day, the same on every replica: derived from the secret and the day, so that it
   * needs no key in Redis, changes every day, and no day's salt tells another's.
   */
  readonly #salt: DailySalt;
  #pending = new Map<number, Pending>();
  /** Days over, as read (see #day). */
  readonly #days = new Map<number, DayRead>();
  #pendingItems = 0;
  #flushing: Promise<void> = Promise.resolve();
  readonly #timer: NodeJS.Timeout;

  private constructor (redis: Redis & DemandScripts, options: RedisDemandOptions) {
    this.#redis = redis;
    this.#limits = options;
    this.#prefix = options.prefix ?? '3gs:demand:';
    this.#now = options.now ?? Date.now;
    this.#secret = options.secret;
    this.#salt = new DailySalt((day) => createHmac('sha256', options.secret).update(`salt ${day}`).digest('hex'), options.ipv6Prefix);
    this.#timer = setInterval(() => { void this.flush(); }, options.flushMs ?? 1000);
    this.#timer.unref();
  }

  /** Connects, or throws RedisUnreachable. */
  static async connect (options: RedisDemandOptions): Promise<RedisDemandStore> {
    // The session store's connection tells the operator of outages; this one is quiet.
    const { redis } = await openRedis(options.url);
    redis.defineCommand('threegsDemandRecord', { numberOfKeys: 0, lua: RECORD });
    redis.defineCommand('threegsDemandReadDay', { numberOfKeys: 0, lua: READ_DAY });
    return new RedisDemandStore(redis as Redis & DemandScripts, options);
  }

  record (asked: Asked, client: string): void {
    const today = dayOf(this.#now());
    let day = this.#pending.get(today);
    if (day === undefined) this.#pending.set(today, (day = { totals: new Map(), items: new Map() }));
    for (const t of asked.totals) day.totals.set(t, (day.totals.get(t) ?? 0) + 1);
    if (asked.items.length === 0) return;
    const bucket = this.#salt.bucket(today, client);
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
  }

  /** Adds what was gathered to Redis; one flush at a time, the next waiting for the one in flight. */
  flush (): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flush());
    return this.#flushing;
  }

  async #flush (): Promise<void> {
    const batches = this.#pending;
    this.#pending = new Map();
    this.#pendingItems = 0;
    try {
      for (const [day, batch] of batches) await this.#add(day, batch);
    } catch {
      // Redis away: this batch is lost (counts are a signal, not a ledger); the next one tries again.
    }
  }

  #base (day: number): string {
    return `${this.#prefix}d:${day}:`;
  }

  /** An item's name in Redis: keyed with the secret, so a guessed word cannot be looked up. */
  #hash (item: string): string {
    return createHmac('sha256', this.#secret).update(`item ${item}`).digest('hex').slice(0, 24);
  }

  async #add (day: number, batch: Pending): Promise<void> {
    const base = this.#base(day);
    const expireAt = Math.floor(((day + this.#limits.windowDays) * DAY_MS) / 1000);
    const entries = [...batch.items];
    // The totals go with the first call; the items in calls of ITEMS_PER_CALL.
    for (let from = 0; from === 0 || from < entries.length; from += ITEMS_PER_CALL) {
      const texts = new Map<string, string>();
      const totals = from === 0 ? [...batch.totals] : [];
      const args: (string | number)[] = [base, expireAt, this.#limits.itemsPerDay, this.#limits.minClients, totals.length];
      for (const [field, n] of totals) args.push(field, n);
      for (const [item, { count, buckets }] of entries.slice(from, from + ITEMS_PER_CALL)) {
        const h = this.#hash(item);
        texts.set(h, item);
        args.push(h, count, [...buckets].join(','));
      }
      const reveal = await this.#redis.threegsDemandRecord(...args);
      if (reveal.length === 0) continue;
      const text = `${base}text`;
      await this.#redis.multi().hset(text, Object.fromEntries(reveal.map((h) => [h, texts.get(h)!]))).expireat(text, expireAt).exec();
    }
  }

  /**
   * What may be shown, read a day at a time: a full window read in one pipeline came back as
   * replies of tens of thousands of entries, parsed and summed in one piece, and held the event
   * loop for up to half a second; a day's reply is a thirtieth of that, and the event loop runs
   * between days (a day kept is a thirtieth too). A day over is read once (see #day).
   */
  async snapshot (): Promise<Snapshot> {
    await this.flush();
    const toDay = dayOf(this.#now());
    const fromDay = toDay - this.#limits.windowDays + 1;
    for (const day of this.#days.keys()) if (day < fromDay) this.#days.delete(day);
    const totals: Record<string, number> = {};
    const texts = new Map<string, string>();
    const perDay: { day: number; read: DayRead }[] = [];
    for (let day = fromDay; day <= toDay; day++) {
      const read = await this.#day(day, toDay);
      await letEventLoopRun();
      for (const [field, n] of read.totals) totals[field] = (totals[field] ?? 0) + n;
      for (const [h, t] of read.texts) texts.set(h, t);
      perDay.push({ day, read });
    }
    // The shown items (those with a text, revealed on any day) on every day they were counted.
    const sums = new Map<string, { asks: number; clients: number; most: number; firstDay: number; lastDay: number }>();
    for (const { day, read } of perDay) {
      await letEventLoopRun();
      for (const [h, { asks, buckets }] of read.items) {
        if (!texts.has(h)) continue;
        const sum = sums.get(h) ?? { asks: 0, clients: 0, most: 0, firstDay: day, lastDay: day };
        sum.asks += asks;
        sum.clients += buckets;
        sum.most = Math.max(sum.most, buckets);
        sum.lastDay = day;
        sums.set(h, sum);
      }
    }
    // Shown at today's k, whatever k revealed it: a k raised since (or another replica's lower k) shows nothing early.
    // In slices too: a full window is 75,000 of them.
    const items: ShownItem[] = [];
    let seen = 0;
    for (const [h, { asks, clients, most, firstDay, lastDay }] of sums) {
      if (++seen % 5_000 === 0) await letEventLoopRun();
      if (most >= this.#limits.minClients) items.push({ key: texts.get(h)!, asks, clients, firstDay, lastDay });
    }
    return { fromDay, toDay, totals, items };
  }

  /**
   * One day's counts, from Redis; a day is kept once read when it can no longer change: a day
   * ends for every replica within seconds of midnight (the last batch flushed a second later, a
   * clock a little behind), so any day before yesterday is final. The window then costs one day
   * or two of Redis replies per report, not thirty (at most ITEMS_IN_WINDOW items kept).
   */
  async #day (day: number, today: number): Promise<DayRead> {
    const kept = this.#days.get(day);
    if (kept !== undefined) return kept;
    const read = await this.#readDay(day);
    if (day < today - 1) this.#days.set(day, read);
    return read;
  }

  async #readDay (day: number): Promise<DayRead> {
    const [totals, ranked, kept, errors, texts, clients] = await this.#redis.threegsDemandReadDay(this.#base(day));
    const error = pairs(errors);
    const seen = pairs(clients);
    const items = new Map<string, { asks: number; buckets: number }>();
    const older: string[] = [];
    for (const list of [ranked, kept]) {
      for (let j = 0; j < list.length; j += 2) {
        const h = list[j]!;
        const buckets = seen.get(h);
        if (buckets === undefined) older.push(h);
        items.set(h, { asks: Number(list[j + 1]) - Number(error.get(h) ?? 0), buckets: Number(buckets ?? 0) });
      }
    }
    // A day recorded before each item's bucket count was kept: counted from its bitmap.
    if (older.length > 0) {
      const bits = this.#redis.pipeline();
      for (const h of older) bits.bitcount(`${this.#base(day)}bits:${h}`);
      const counted = await replies(bits);
      older.forEach((h, i) => { items.get(h)!.buckets = Number(counted[i] ?? 0); });
    }
    return { totals: [...pairs(totals)].map(([field, n]) => [field, Number(n)]), texts: pairs(texts), items };
  }

  async close (): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

/** A pipeline's replies, or its first error thrown. */
async function replies (pipeline: ReturnType<Redis['pipeline']>): Promise<unknown[]> {
  const results = await pipeline.exec();
  const failed = results?.find(([err]) => err !== null);
  if (results === null || failed !== undefined) throw failed?.[0] ?? new Error('Redis pipeline failed');
  return results.map(([, value]) => value);
}

/** A flat reply (field, value, ...) as a map. */
function pairs (flat: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let j = 0; j < flat.length; j += 2) map.set(flat[j]!, flat[j + 1]!);
  return map;
}
