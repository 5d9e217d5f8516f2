import type { Bitset, BitsetPool } from "./bitset.ts";

/** Above this many slots a posting turns from a set of slots into a bitset. */
const DENSE_FROM = 48;

/**
 * The slots that accept one answer code: a small `Set` while few (ZIP codes: thousands of codes,
 * a handful of surveys each), a bitset once common (gender, age).
 */
export class Posting {
  #sparse: Set<number> | undefined = new Set();
  #dense: Bitset | undefined;
  readonly #pool: BitsetPool;

  constructor(pool: BitsetPool) {
    this.#pool = pool;
  }

  get size(): number {
    return this.#dense?.size ?? this.#sparse?.size ?? 0;
  }

  add(slot: number): void {
    if (this.#dense !== undefined) {
      this.#dense.add(slot);
      return;
    }
    const sparse = this.#sparse ?? new Set<number>();
    sparse.add(slot);
    if (sparse.size <= DENSE_FROM) return;
    this.#dense = this.#pool.create();
    for (const member of sparse) this.#dense.add(member);
    this.#sparse = undefined;
  }

  delete(slot: number): void {
    if (this.#dense !== undefined) this.#dense.delete(slot);
    else this.#sparse?.delete(slot);
  }

  /** Gives the pool back its bitset. */
  release(): void {
    if (this.#dense !== undefined) this.#pool.release(this.#dense);
  }

  /** ORs this posting into `target` on the listed words (the only ones the caller reads). */
  orInto(target: Uint32Array, words: readonly number[]): void {
    if (this.#dense !== undefined) {
      const source = this.#dense.words;
      for (const word of words) target[word] = (target[word] ?? 0) | (source[word] ?? 0);
      return;
    }
    for (const slot of this.#sparse ?? []) target[slot >>> 5] = (target[slot >>> 5] ?? 0) | (1 << (slot & 31));
  }
}
