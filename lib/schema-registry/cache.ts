/**
 * A map with a bound: when full, the entry used least recently goes. Schemas are few per topic, but
 * a container lives for hours and a bug upstream (a producer registering a schema per message) must
 * not grow it without end.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #capacity: number;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1)
      throw new RangeError(`cache size must be a positive integer, not ${capacity}`);
    this.#capacity = capacity;
  }

  /** The key used last: a batch reads one schema id over and over, so its hit costs one comparison. */
  #lastKey: K | undefined;
  #lastValue: V | undefined;

  get(key: K): V | undefined {
    if (key === this.#lastKey && this.#lastValue !== undefined) return this.#lastValue;
    const value = this.#entries.get(key);
    // Moving a hit to the end keeps the map in order of use.
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
      this.#lastKey = key;
      this.#lastValue = value;
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#lastKey = undefined;
    this.#lastValue = undefined;
    this.#entries.delete(key);
    if (this.#entries.size >= this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
  }

  delete(key: K): void {
    this.#lastKey = undefined;
    this.#lastValue = undefined;
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
