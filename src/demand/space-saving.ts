/**
 * The heavy hitters of one day, in bounded memory: the Space-Saving algorithm (Metwally, Agrawal
 * and El Abbadi, 2005) over a stream-summary (entries grouped by count), so that every step is
 * O(1). When full, a new item takes the place of one with the least count and inherits that count
 * as its possible error; any item asked more often than total/capacity times is guaranteed to be
 * kept. Written here because no maintained package keeps per-item data beside the count (each
 * item carries its client buckets, see memory-store.ts); `bloom-filters`' TopK keeps counts only.
 *
 * An item can be kept for good (`keep`): it leaves the summary and is never evicted, so items
 * already shown (asked by k clients) cannot be pushed out by a flood of new ones from one client.
 * At most `capacity` items are kept, beside at most `capacity` in the summary.
 */
export interface Counted {
  readonly key: string;
  /** Times counted, including `error`. */
  count: number;
  /** The count inherited from the item it replaced: `count - error` is a lower bound of its true count. */
  error: number;
  /** Client buckets seen (see client-bucket.ts): bit i of `low` for buckets 0 to 31, of `high` for 32 to 63. */
  low: number;
  high: number;
}

export class SpaceSaving {
  readonly #entries = new Map<string, Counted>();
  readonly #byCount = new Map<number, Set<Counted>>();
  readonly #kept = new Set<Counted>();
  #min = 0;

  constructor (readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer (got ${capacity})`);
  }

  get size (): number {
    return this.#entries.size;
  }

  entries (): IterableIterator<Counted> {
    return this.#entries.values();
  }

  get (key: string): Counted | undefined {
    return this.#entries.get(key);
  }

  /** Counts `key` once more, making room for it if it is new and the summary is full. */
  add (key: string): Counted {
    const known = this.#entries.get(key);
    if (known !== undefined && this.#kept.has(known)) {
      known.count++;
      return known;
    }
    if (known !== undefined) {
      const from = known.count;
      // The least count moves up with it when it was the last one there.
      if (this.#leave(known) && from === this.#min) this.#min = from + 1;
      this.#join(known, from + 1);
      return known;
    }
    let error = 0;
    if (this.#entries.size - this.#kept.size >= this.capacity) {
      const victim = this.#byCount.get(this.#min)!.values().next().value!;
      this.#entries.delete(victim.key);
      error = victim.count;
      // The newcomer joins at the least count + 1: if the victim was the last at the least, that is the least now.
      if (this.#leave(victim)) this.#min = error + 1;
    } else this.#min = 1;
    const entry: Counted = { key, count: 0, error, low: 0, high: 0 };
    this.#entries.set(key, entry);
    this.#join(entry, error + 1);
    return entry;
  }

  /** Keeps `entry` for good, out of eviction's reach, while fewer than `capacity` are kept; false otherwise. */
  keep (entry: Counted): boolean {
    if (this.#kept.has(entry)) return true;
    if (this.#kept.size >= this.capacity || this.#entries.get(entry.key) !== entry) return false;
    // The least count is found again when its group was the one emptied: pins are rare (at most capacity a day).
    if (this.#leave(entry) && entry.count === this.#min) this.#min = leastKey(this.#byCount);
    this.#kept.add(entry);
    return true;
  }

  /** Takes `entry` out of its count's group; true when that group is now empty. */
  #leave (entry: Counted): boolean {
    const group = this.#byCount.get(entry.count)!;
    group.delete(entry);
    if (group.size > 0) return false;
    this.#byCount.delete(entry.count);
    return true;
  }

  #join (entry: Counted, count: number): void {
    entry.count = count;
    let group = this.#byCount.get(count);
    if (group === undefined) this.#byCount.set(count, (group = new Set()));
    group.add(entry);
  }
}

function leastKey (groups: ReadonlyMap<number, unknown>): number {
  let least = Infinity;
  for (const count of groups.keys()) if (count < least) least = count;
  return least === Infinity ? 0 : least;
}

/** Bits set in a 32-bit number. */
export function bitsSet (n: number): number {
  let v = n - ((n >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** How many of the 64 client buckets an item was seen in: never more than the distinct clients who asked it. */
export const clientsSeen = (c: Pick<Counted, 'low' | 'high'>): number => bitsSet(c.low) + bitsSet(c.high);

/** Marks bucket `b` (0 to 63) as seen. */
export function see (c: Counted, b: number): void {
  if (b < 32) c.low = (c.low | (1 << b)) >>> 0;
  else c.high = (c.high | (1 << (b - 32))) >>> 0;
}
