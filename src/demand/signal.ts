import type { Asked } from './asked.js';
import { MemoryDemandStore } from './memory-store.js';
import { RedisDemandStore } from './redis-store.js';
import { itemsPerDay } from './store.js';
import { dayOf } from './client-bucket.js';
import { buildReport, type DemandReport } from './report.js';
import type { DemandStore } from './store.js';

export interface DemandSettings {
  /** false: DEMAND_SIGNAL=off, nothing is recorded. */
  readonly recording: boolean;
  readonly minClients: number;
  readonly windowDays: number;
  /** Bits of an IPv6 address that are one client for k (DEMAND_IPV6_PREFIX). */
  readonly ipv6Prefix?: number;
}

/** How long the page's public list is reused: the page must not cost a Redis scan per view. */
export const PUBLIC_LIST_TTL_MS = 60_000;
export const PUBLIC_LIST_LENGTH = 5;

/**
 * The demand signal as the app uses it: record a request, report to the curator, list the most
 * requested uncovered topics for the page. With recording off it records nothing and reports an
 * empty window that says so.
 */
export class DemandSignal {
  readonly #store: DemandStore | undefined;
  readonly #settings: DemandSettings;
  #publicList: { at: number; topics: Promise<readonly string[]> } | undefined;

  constructor (store: DemandStore | undefined, settings: DemandSettings) {
    this.#store = settings.recording ? store : undefined;
    this.#settings = settings;
  }

  get recording (): boolean {
    return this.#store !== undefined;
  }

  record (asked: Asked, client: string): void {
    this.#store?.record(asked, client);
  }

  /** The report for the curator; `names`: this registry's category names by slug. */
  async report (names: ReadonlyMap<string, string>): Promise<DemandReport> {
    const { minClients, windowDays } = this.#settings;
    const today = dayOf(Date.now());
    const snapshot = this.#store === undefined ? { fromDay: today - windowDays + 1, toDay: today, totals: {}, items: [] } : await this.#store.snapshot();
    return buildReport(snapshot, { recording: this.recording, store: this.#store?.kind ?? 'none', minClients, windowDays, names });
  }

  /** The most requested topics nobody here covers (the same k-anonymity), for the page; cached a minute. */
  publicTopics (names: ReadonlyMap<string, string>, now = Date.now()): Promise<readonly string[]> {
    if (this.#publicList === undefined || now - this.#publicList.at > PUBLIC_LIST_TTL_MS) {
      const topics = this.report(names).then(
        (r) => r.uncovered.slice(0, PUBLIC_LIST_LENGTH).map((g) => g.text),
        // A store that cannot answer now (Redis away) leaves the list out, not the page.
        () => []
      );
      this.#publicList = { at: now, topics };
    }
    return this.#publicList.topics;
  }

  close (): Promise<void> {
    return this.#store?.close() ?? Promise.resolve();
  }
}

export interface DemandOptions extends DemandSettings {
  /** With REDIS_URL and DEMAND_SECRET, counts are shared by the replicas and kept across restarts. */
  readonly redisUrl?: string | undefined;
  readonly secret?: string | undefined;
}

/**
 * The demand signal the configuration asks for: off, in memory, or in Redis (throws
 * RedisUnreachable). Redis only with the secret its names and salts are derived from: without it,
 * a copy of Redis would let anyone test guessed words and addresses, so counts stay in memory.
 */
export async function createDemandSignal (options: DemandOptions): Promise<DemandSignal> {
  if (!options.recording) return new DemandSignal(undefined, options);
  const limits = {
    minClients: options.minClients,
    windowDays: options.windowDays,
    itemsPerDay: itemsPerDay(options.windowDays),
    ipv6Prefix: options.ipv6Prefix,
  };
  const store =
    options.redisUrl === undefined || options.secret === undefined
      ? new MemoryDemandStore(limits)
      : await RedisDemandStore.connect({ url: options.redisUrl, secret: options.secret, ...limits });
  return new DemandSignal(store, options);
}
