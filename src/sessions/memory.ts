import { LRUCache } from 'lru-cache';
import { newSessionId, type SessionState, type SessionStore } from './store.js';

export interface MemorySessionOptions {
  /** Idle time after which a session is forgotten. */
  readonly ttlMs: number;
  /** Most sessions held; the least recently used goes first. */
  readonly maxSessions: number;
  /** Milliseconds clock, replaceable in tests (by default a monotonic one: performance.now). */
  readonly now?: () => number;
}

/**
 * In-memory sessions with an idle TTL and an LRU cap, so memory stays bounded whatever clients
 * do: lru-cache, which keeps its order in typed arrays. A Map used as an LRU (delete and insert
 * again) cost 8 µs a new session once full, its first live key found behind the holes left by
 * deleted ones; lru-cache takes under 1 µs.
 */
export class MemorySessionStore implements SessionStore {
  readonly kind = 'memory';
  readonly #cache: LRUCache<string, SessionState>;
  readonly #sweeper: NodeJS.Timeout;

  constructor (options: MemorySessionOptions) {
    this.#cache = new LRUCache<string, SessionState>({
      // lru-cache sets aside its arrays for `max` entries at once: about 45 bytes each.
      max: options.maxSessions,
      ttl: options.ttlMs,
      // The TTL is idle time: every use starts it again. A session idle for longer than the TTL is gone.
      updateAgeOnGet: true,
      // Read the clock at every check (no cached time), so an injected clock is always obeyed.
      ttlResolution: 0,
      ...(options.now === undefined ? {} : { perf: { now: options.now } }),
    });
    // Expired sessions are dropped when touched, and all of them once a minute (or once a TTL).
    this.#sweeper = setInterval(() => this.#cache.purgeStale(), Math.min(options.ttlMs, 60_000));
    this.#sweeper.unref();
  }

  async create (state: SessionState): Promise<string> {
    const id = newSessionId();
    this.#cache.set(id, state);
    return id;
  }

  async get (id: string): Promise<SessionState | undefined> {
    return this.#cache.get(id);
  }

  /** A live session's new state; like a use, it makes the session the most recently used. */
  async update (id: string, state: SessionState): Promise<boolean> {
    if (!this.#cache.has(id)) return false;
    this.#cache.set(id, state, { noUpdateTTL: true });
    return true;
  }

  async delete (id: string): Promise<boolean> {
    const live = this.#cache.has(id);
    this.#cache.delete(id);
    return live;
  }

  async size (): Promise<number> {
    this.#cache.purgeStale();
    return this.#cache.size;
  }

  async ping (): Promise<boolean> {
    return true;
  }

  async close (): Promise<void> {
    clearInterval(this.#sweeper);
    this.#cache.clear();
  }
}
