import type { Bitset, BitsetPool } from "./bitset.ts";

/** Above this many slots a posting turns from a set of slots into a bitset. */
const DENSE_FROM = 48;

/**
 * The slots that accept one answer code: a short array while few (ZIP codes: tens of thousands
 * of codes, a handful of surveys each), a bitset once common (gender, age). An array rather than
 * a `Set`: at most {@link DENSE_FROM} slots are scanned, and at 50,000 ZIP codes it holds a
 * fifth of the memory. The array is kept at its exact length (`concat`, not `push`): a pushed
 * array reserves room for 17 elements, 184 bytes where a ZIP code's one or two slots need 64.
 */
export class Posting {
  #sparse: number[] | undefined = [];
  #dense: Bitset | undefined;
  readonly #pool: BitsetPool;

  constructor(pool: BitsetPool) {
    this.#pool = pool;
  }

  get size(): number {
    return this.#dense?.size ?? this.#sparse?.length ?? 0;
  }

  add(slot: number): void {
    if (this.#dense !== undefined) {
      this.#dense.add(slot);
      return;
    }
    const held = this.#sparse ?? [];
    if (held.includes(slot)) return;
    const sparse = held.concat(slot);
    this.#sparse = sparse;
    if (sparse.length <= DENSE_FROM) return;
    this.#dense = this.#pool.create();
    for (const member of sparse) this.#dense.add(member);
    this.#sparse = undefined;
  }

  delete(slot: number): void {
    if (this.#dense !== undefined) {
      this.#dense.delete(slot);
      return;
    }
    const sparse = this.#sparse ?? [];
    const index = sparse.indexOf(slot);
    if (index === -1) return;
    // Order does not matter: swap the last one in.
    const last = sparse.pop() ?? slot;
    if (index < sparse.length) sparse[index] = last;
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
