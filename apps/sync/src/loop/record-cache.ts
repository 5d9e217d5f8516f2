import { BoundedCache } from "../common/bounded-cache.ts";

/**
 * Serialised survey records by id, least recently used dropped first once the text held passes
 * `maxBytes`. It sits in front of the store for answers that list surveys (`POST /v1/match`):
 * matches keep returning the best-paying surveys, so a few thousand records answer nearly every
 * request, while the inventory itself stays in the store rather than in memory.
 */
export class RecordCache {
  readonly #records: BoundedCache<number, string>;

  /** @param maxBytes Most text held, counted as one byte per character (records are JSON, nearly all ASCII). */
  constructor(maxBytes: number) {
    this.#records = new BoundedCache(maxBytes, (record) => record.length);
  }

  /** How much text is held, in characters. */
  get bytes(): number {
    return this.#records.bytes;
  }

  /** How many records are held. */
  get size(): number {
    return this.#records.size;
  }

  /** The record, marked as just used; `undefined` when not held. */
  get(id: number): string | undefined {
    this.#records.touch(id);
    return this.#records.get(id);
  }

  /** Holds the record (a record larger than the whole cache is not held), dropping the least recently used past the bound. */
  set(id: number, record: string): void {
    this.#records.set(id, record);
  }

  delete(id: number): void {
    this.#records.delete(id);
  }

  clear(): void {
    this.#records.clear();
  }
}
