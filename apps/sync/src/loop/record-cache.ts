/**
 * Serialised survey records by id, least recently used dropped first once the text held passes
 * `maxBytes`. It sits in front of the store for answers that list surveys (`POST /v1/match`):
 * matches keep returning the best-paying surveys, so a few thousand records answer nearly every
 * request, while the inventory itself stays in the store rather than in memory.
 */
export class RecordCache {
  readonly #maxBytes: number;
  /** In order of use, least recent first (a `Map` iterates in insertion order). */
  readonly #records = new Map<number, string>();
  #bytes = 0;

  /** @param maxBytes Most text held, counted as one byte per character (records are JSON, nearly all ASCII). */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** How much text is held, in characters. */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many records are held. */
  get size(): number {
    return this.#records.size;
  }

  /** The record, marked as just used; `undefined` when not held. */
  get(id: number): string | undefined {
    const record = this.#records.get(id);
    if (record === undefined) return undefined;
    this.#records.delete(id);
    this.#records.set(id, record);
    return record;
  }

  /** Holds the record (a record larger than the whole cache is not held), dropping the least recently used past the bound. */
  set(id: number, record: string): void {
    this.delete(id);
    if (record.length > this.#maxBytes) return;
    this.#records.set(id, record);
    this.#bytes += record.length;
    for (const [oldest, text] of this.#records) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#records.delete(oldest);
      this.#bytes -= text.length;
    }
  }

  delete(id: number): void {
    const record = this.#records.get(id);
    if (record === undefined) return;
    this.#records.delete(id);
    this.#bytes -= record.length;
  }

  clear(): void {
    this.#records.clear();
    this.#bytes = 0;
  }
}
