import type { Asked } from './asked.js';

/**
 * Where demand counts live: in memory (lost at restart) or in Redis (shared by replicas, kept
 * across restarts). Both keep per day, for the days of the window, plain totals and the heavy
 * hitters among items, each item with the client buckets it was seen in; both show an item only
 * once it was seen in at least k buckets on one day (so by at least k distinct clients).
 */
export interface DemandStore {
  readonly kind: 'memory' | 'redis';
  /** Counts one request. Never waits and never throws: recording must not cost a request anything it can feel. */
  record(asked: Asked, client: string): void;
  /** What may be shown: totals, and the items k distinct clients asked on one day of the window. */
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

export interface DemandLimits {
  /** k: distinct clients an item needs on one day before it is shown anywhere. */
  readonly minClients: number;
  /** Days kept, today included; older days are dropped whole. */
  readonly windowDays: number;
  /** Items kept per day (Space-Saving capacity): what bounds memory. */
  readonly itemsPerDay: number;
  /** Bits of an IPv6 address that are one client (DEMAND_IPV6_PREFIX; the rate limit's /64 when unset). */
  readonly ipv6Prefix?: number | undefined;
  /** The clock, for tests of the window and the salt's rotation. */
  readonly now?: () => number;
}

/**
 * Items kept over the whole window, shared out among its days: what bounds memory whatever the
 * traffic and the window's length. An item is at most about 400 bytes in memory (its text is at
 * most 6 words of 24 letters), about 120 for everyday words.
 */
export const ITEMS_IN_WINDOW = 75_000;

/** Items kept per day: the window's share (2,500 in a 30-day window; 205 in a 365-day one). */
export const itemsPerDay = (windowDays: number): number => Math.floor(ITEMS_IN_WINDOW / windowDays);

export interface ShownItem {
  /** `kind SEP ...parts` (see asked.ts). */
  readonly key: string;
  /** Times asked within the window, at least (Space-Saving's lower bound, added over the days). */
  readonly asks: number;
  /**
   * Distinct clients, added over the days (a client asking on two days counts on each: the salt
   * changes daily, so they cannot be told apart), at least: two clients in one bucket count once.
   */
  readonly clients: number;
  /** The first and last day of the window it was counted on (days since 1970-01-01, UTC). */
  readonly firstDay: number;
  readonly lastDay: number;
}

export interface Snapshot {
  /** First and last day of the window (days since 1970-01-01, UTC). */
  readonly fromDay: number;
  readonly toDay: number;
  /** Plain counters over the window, keyed `kind SEP value` (see asked.ts). */
  readonly totals: Readonly<Record<string, number>>;
  readonly items: readonly ShownItem[];
}
