/**
 * Fixed-width bitsets over survey slots, all grown together by their pool so that every set has
 * the same number of 32-bit words and loops need no bounds checks.
 */
export class BitsetPool {
  #wordCount: number;
  readonly #members = new Set<Bitset>();

  constructor(wordCount: number) {
    this.#wordCount = wordCount;
  }

  get wordCount(): number {
    return this.#wordCount;
  }

  /** A new empty bitset, grown with the pool until {@link release}d. */
  create(): Bitset {
    const bitset = new Bitset(this.#wordCount);
    this.#members.add(bitset);
    return bitset;
  }

  release(bitset: Bitset): void {
    this.#members.delete(bitset);
  }

  /** Widens every member to `wordCount` words (existing bits kept). */
  grow(wordCount: number): void {
    this.#wordCount = wordCount;
    for (const bitset of this.#members) bitset.resize(wordCount);
  }
}

/** A set of slots. `words` is exposed for the matcher's word-wise loops. */
export class Bitset {
  words: Uint32Array;
  #size = 0;

  constructor(wordCount: number) {
    this.words = new Uint32Array(wordCount);
  }

  /** How many slots are in the set. */
  get size(): number {
    return this.#size;
  }

  resize(wordCount: number): void {
    const words = new Uint32Array(wordCount);
    words.set(this.words.subarray(0, Math.min(wordCount, this.words.length)));
    this.words = words;
  }

  add(slot: number): void {
    const index = slot >>> 5;
    const mask = 1 << (slot & 31);
    const word = this.words[index] ?? 0;
    if ((word & mask) === 0) {
      this.words[index] = word | mask;
      this.#size++;
    }
  }

  delete(slot: number): void {
    const index = slot >>> 5;
    const mask = 1 << (slot & 31);
    const word = this.words[index] ?? 0;
    if ((word & mask) !== 0) {
      this.words[index] = word & ~mask;
      this.#size--;
    }
  }

  has(slot: number): boolean {
    return ((this.words[slot >>> 5] ?? 0) & (1 << (slot & 31))) !== 0;
  }
}
