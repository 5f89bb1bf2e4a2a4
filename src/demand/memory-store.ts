import { letEventLoopRun, STEPS_BETWEEN_PAUSES } from '../util/event-loop.js';
import type { Asked } from './asked.js';
import { DailySalt, dayOf } from './client-bucket.js';
import { clientsSeen, see, SpaceSaving } from './space-saving.js';
import type { DemandLimits, DemandStore, ShownItem, Snapshot } from './store.js';

interface Day {
  readonly totals: Map<string, number>;
  readonly items: SpaceSaving;
}

/** Demand counts in this process's memory: lost at restart, bounded by the window and the per-day capacity. */
export class MemoryDemandStore implements DemandStore {
  readonly kind = 'memory';
  readonly #days = new Map<number, Day>();
  readonly #salt: DailySalt;
  readonly #limits: DemandLimits;
  readonly #now: () => number;

  constructor (limits: DemandLimits) {
    this.#limits = limits;
    this.#salt = new DailySalt(undefined, limits.ipv6Prefix);
    this.#now = limits.now ?? Date.now;
  }

  record (asked: Asked, client: string): void {
    const today = dayOf(this.#now());
    const day = this.#day(today);
    for (const t of asked.totals) day.totals.set(t, (day.totals.get(t) ?? 0) + 1);
    if (asked.items.length === 0) return;
    const bucket = this.#salt.bucket(today, client);
    for (const key of asked.items) {
      const item = day.items.add(key);
      see(item, bucket);
      // Shown from now on: no flood of new items can evict it (issue 31, finding 2).
      if (clientsSeen(item) >= this.#limits.minClients) day.items.keep(item);
    }
  }

  async snapshot (): Promise<Snapshot> {
    const toDay = dayOf(this.#now());
    this.#expire(toDay);
    const totals: Record<string, number> = {};
    // One pass over every day's items, with a pause for the event loop every few thousand, so that
    // requests go on while a report is built. Days and items are copied first: a request recorded
    // during a pause may add a day or evict an item.
    const sums = new Map<string, { asks: number; clients: number; most: number; firstDay: number; lastDay: number }>();
    let seen = 0;
    for (const [dayNumber, day] of [...this.#days.entries()]) {
      for (const [key, n] of day.totals) totals[key] = (totals[key] ?? 0) + n;
      for (const c of [...day.items.entries()]) {
        if (++seen % STEPS_BETWEEN_PAUSES === 0) await letEventLoopRun();
        const clients = clientsSeen(c);
        const sum = sums.get(c.key);
        if (sum === undefined) sums.set(c.key, { asks: c.count - c.error, clients, most: clients, firstDay: dayNumber, lastDay: dayNumber });
        else {
          sum.asks += c.count - c.error;
          sum.clients += clients;
          sum.most = Math.max(sum.most, clients);
          sum.firstDay = Math.min(sum.firstDay, dayNumber);
          sum.lastDay = Math.max(sum.lastDay, dayNumber);
        }
      }
    }
    // Shown once k distinct clients asked it on one day.
    const items: ShownItem[] = [];
    for (const [key, { asks, clients, most, firstDay, lastDay }] of sums) {
      if (++seen % STEPS_BETWEEN_PAUSES === 0) await letEventLoopRun();
      if (most >= this.#limits.minClients) items.push({ key, asks, clients, firstDay, lastDay });
    }
    return { fromDay: toDay - this.#limits.windowDays + 1, toDay, totals, items };
  }

  /** Everything this store holds, as plain data: what a privacy test reads (no address, session id or query as typed may be in it). */
  stored (): { day: number; totals: [string, number][]; items: { key: string; count: number; error: number; low: number; high: number }[] }[] {
    return [...this.#days].map(([day, { totals, items }]) => ({
      day,
      totals: [...totals],
      items: [...items.entries()].map(({ key, count, error, low, high }) => ({ key, count, error, low, high })),
    }));
  }

  async close (): Promise<void> {
    this.#days.clear();
  }

  #day (today: number): Day {
    let day = this.#days.get(today);
    if (day === undefined) {
      this.#expire(today);
      day = { totals: new Map(), items: new SpaceSaving(this.#limits.itemsPerDay) };
      this.#days.set(today, day);
    }
    return day;
  }

  /** Drops the days that left the window: after DEMAND_WINDOW_DAYS, nothing of them is left. */
  #expire (today: number): void {
    for (const d of this.#days.keys()) if (d <= today - this.#limits.windowDays || d > today) this.#days.delete(d);
  }
}
