/**
 * Remembers computed values by key, at most `max` of them: when full it is emptied and starts
 * again. Used where the same inputs recur (queries, header values, misspelt words) but a client
 * can send endlessly many distinct ones: memory stays flat whatever arrives. Emptying instead of
 * evicting one entry at a time keeps a hit to one Map lookup; written by hand because an LRU
 * library's per-hit bookkeeping would cost more than most of the values it saves.
 */
export class BoundedMemo<K, V> {
  readonly #values = new Map<K, V>();
  readonly #max: number;

  constructor (max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a memo holds at least one value (got ${max})`);
    this.#max = max;
  }

  /** The remembered value for `key`, computing and remembering it the first time. */
  get (key: K, compute: (key: K) => V): V {
    if (this.#values.has(key)) return this.#values.get(key) as V;
    const value = compute(key);
    if (this.#values.size >= this.#max) this.#values.clear();
    this.#values.set(key, value);
    return value;
  }

  /** How many values are remembered now; never more than `max`. */
  get size (): number {
    return this.#values.size;
  }
}
