/** A map read through `changes` first (undefined: removed), then `base`: a copy of a large map with a few entries changed, without copying it. */
export class OverlayMap<K, V> implements ReadonlyMap<K, V> {
  readonly #base: ReadonlyMap<K, V>;
  readonly #changes: ReadonlyMap<K, V | undefined>;

  constructor (base: ReadonlyMap<K, V>, changes: ReadonlyMap<K, V | undefined>) {
    this.#base = base;
    this.#changes = changes;
  }

  get (key: K): V | undefined {
    return this.#changes.has(key) ? this.#changes.get(key) : this.#base.get(key);
  }

  has (key: K): boolean {
    return this.get(key) !== undefined;
  }

  get size (): number {
    let n = 0;
    const keys = this.keys();
    while (!keys.next().done) n++;
    return n;
  }

  * entries (): MapIterator<[K, V]> {
    for (const [k, v] of this.#base) if (!this.#changes.has(k)) yield [k, v];
    for (const [k, v] of this.#changes) if (v !== undefined) yield [k, v];
  }

  * keys (): MapIterator<K> {
    for (const [k] of this.entries()) yield k;
  }

  * values (): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  forEach (fn: (value: V, key: K, map: ReadonlyMap<K, V>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }

  [Symbol.iterator] (): MapIterator<[K, V]> {
    return this.entries();
  }
}
