import { randomUUID } from 'node:crypto';

/** What the server remembers about one 2025-era client between requests. */
export interface SessionState {
  /** The version agreed at `initialize`. */
  readonly protocolVersion: string;
  /** Set by `notifications/initialized`. */
  readonly initialized: boolean;
}

/** The shared store cannot be reached: the request can be retried later; nothing is lost. */
export class SessionStoreUnavailable extends Error {
  constructor (cause: unknown) {
    super('session store unavailable', { cause });
    this.name = 'SessionStoreUnavailable';
  }
}

/** Asynchronous so that a store shared between replicas can implement it as well. */
export interface SessionStore {
  /** Which implementation, for /health and logs. */
  readonly kind: 'memory' | 'redis';
  create(state: SessionState): Promise<string>;
  /** Looks a session up and counts as activity (restarts its idle timer). */
  get(id: string): Promise<SessionState | undefined>;
  /** Replaces the state of a live session; false if it is gone. */
  update(id: string, state: SessionState): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  size(): Promise<number>;
  /** True when the store can serve requests now (readiness). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * "The session ID SHOULD be globally unique and cryptographically secure ... MUST only contain
 * visible ASCII characters (ranging from 0x21 to 0x7E)": a random (v4) UUID, 122 random bits
 * from node:crypto, which draws them from a buffered CSPRNG pool instead of a syscall per id.
 */
export function newSessionId (): string {
  return randomUUID();
}

/** Visible ASCII, bounded length: anything else cannot be one of ours. */
export function isWellFormedSessionId (id: string): boolean {
  return id.length > 0 && id.length <= 128 && /^[\x21-\x7e]+$/.test(id);
}
