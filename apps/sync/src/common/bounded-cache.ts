/**
 * Values by key, the sum of their sizes held under a bound: past it, the entries earliest in
 * order are dropped first, and a value larger than the whole bound is not held at all. Order is
 * insertion order; {@link BoundedCache.touch} moves an entry last, for least-recently-used
 * caches. The one mechanism behind the service's in-memory caches (pages of `GET /v1/surveys`,
 * records of `POST /v1/match`), so that every one of them is bounded the same way.
 */
export class BoundedCache<K, V> {
  readonly #maxBytes: number;
  readonly #sizeOf: (value: V) => number;
  /** Each value with the size it was counted at (a value may grow: see `recount`). */
  readonly #entries = new Map<K, { readonly value: V; bytes: number }>();
  #bytes = 0;

  /** @param sizeOf The size a value counts for against `maxBytes`. */
  constructor(maxBytes: number, sizeOf: (value: V) => number) {
    this.#maxBytes = maxBytes;
    this.#sizeOf = sizeOf;
  }

  /** The sum of the sizes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many entries are held. */
  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /** Moves the entry last, so that it is dropped after every other (least recently used first). */
  touch(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
  }

  /** Holds the value last in order (replacing the key's), then drops the earliest entries past the bound. */
  set(key: K, value: V): void {
    this.delete(key);
    const bytes = this.#sizeOf(value);
    if (bytes > this.#maxBytes) return;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    this.#evictBeyondBound();
  }

  /**
   * Counts a held value again after it grew in place (a compressed copy added to a page), then
   * drops the earliest entries past the bound. Nothing happens when the key holds another value:
   * one no longer cached is only being served.
   */
  recount(key: K, value: V): void {
    const entry = this.#entries.get(key);
    if (entry?.value !== value) return;
    const bytes = this.#sizeOf(value);
    this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    if (bytes > this.#maxBytes) this.delete(key);
    this.#evictBeyondBound();
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #evictBeyondBound(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) return;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes;
    }
  }
}
