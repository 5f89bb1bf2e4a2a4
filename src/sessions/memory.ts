import { newSessionId, type SessionState, type SessionStore } from './store.js';

export interface MemorySessionOptions {
  /** Idle time after which a session is forgotten. */
  readonly ttlMs: number;
  /** Most sessions held; the least recently used goes first. */
  readonly maxSessions: number;
  /** Milliseconds clock, replaceable in tests. */
  readonly now?: () => number;
}

interface Entry {
  state: SessionState;
  lastSeen: number;
}

/**
 * In-memory sessions with an idle TTL and an LRU cap, so memory stays bounded whatever clients
 * do. Written by hand over a Map (whose insertion order is the LRU order) because we need an
 * injectable clock for tests and this same small interface for the shared store.
 */
export class MemorySessionStore implements SessionStore {
  readonly kind = 'memory';
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: MemorySessionOptions) {
    this.#ttlMs = options.ttlMs;
    this.#max = options.maxSessions;
    this.#now = options.now ?? Date.now;
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(this.#ttlMs, 60_000));
    this.#sweeper.unref();
  }

  async create(state: SessionState): Promise<string> {
    const id = newSessionId();
    while (this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    this.#entries.set(id, { state, lastSeen: this.#now() });
    return id;
  }

  async get(id: string): Promise<SessionState | undefined> {
    const entry = this.#live(id);
    if (entry === undefined) return undefined;
    this.#entries.delete(id);
    entry.lastSeen = this.#now();
    this.#entries.set(id, entry);
    return entry.state;
  }

  async update(id: string, state: SessionState): Promise<boolean> {
    const entry = this.#live(id);
    if (entry === undefined) return false;
    entry.state = state;
    return true;
  }

  async delete(id: string): Promise<boolean> {
    return this.#live(id) !== undefined && this.#entries.delete(id);
  }

  async size(): Promise<number> {
    this.#sweep();
    return this.#entries.size;
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#entries.clear();
  }

  #live(id: string): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (this.#now() - entry.lastSeen >= this.#ttlMs) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry;
  }

  /** Oldest first: stop at the first session still alive. */
  #sweep(): void {
    const now = this.#now();
    for (const [id, entry] of this.#entries) {
      if (now - entry.lastSeen < this.#ttlMs) break;
      this.#entries.delete(id);
    }
  }
}
