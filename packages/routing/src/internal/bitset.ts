/**
 * Fixed-width bitsets over survey slots, all grown together by their pool so that every set has
 * the same number of 32-bit words.
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
  create(options: { readonly trackWords?: boolean } = {}): Bitset {
    const bitset = new Bitset(this.#wordCount, options.trackWords ?? false);
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

/**
 * A set of slots. `words` is exposed for the matcher's word-wise loops. With `trackWords`, it
 * also keeps the indexes of its non-zero words (`nonzeroWords`, unordered), so that a loop over
 * a rarely used qualification touches a few words rather than all of them.
 */
export class Bitset {
  words: Uint32Array;
  /** Indexes of the non-zero words; maintained only when tracking. */
  readonly nonzeroWords: number[] = [];
  #positions: Int32Array | undefined;
  #size = 0;

  constructor(wordCount: number, trackWords: boolean) {
    this.words = new Uint32Array(wordCount);
    this.#positions = trackWords ? new Int32Array(wordCount).fill(-1) : undefined;
  }

  /** How many slots are in the set. */
  get size(): number {
    return this.#size;
  }

  resize(wordCount: number): void {
    const words = new Uint32Array(wordCount);
    words.set(this.words.subarray(0, Math.min(wordCount, this.words.length)));
    this.words = words;
    if (this.#positions !== undefined) {
      const positions = new Int32Array(wordCount).fill(-1);
      positions.set(this.#positions.subarray(0, Math.min(wordCount, this.#positions.length)));
      this.#positions = positions;
    }
  }

  add(slot: number): void {
    const index = slot >>> 5;
    const mask = 1 << (slot & 31);
    const word = this.words[index] ?? 0;
    if ((word & mask) !== 0) return;
    this.words[index] = word | mask;
    this.#size++;
    if (word === 0 && this.#positions !== undefined) {
      this.#positions[index] = this.nonzeroWords.length;
      this.nonzeroWords.push(index);
    }
  }

  delete(slot: number): void {
    const index = slot >>> 5;
    const mask = 1 << (slot & 31);
    const word = this.words[index] ?? 0;
    if ((word & mask) === 0) return;
    const updated = word & ~mask;
    this.words[index] = updated;
    this.#size--;
    if (updated === 0 && this.#positions !== undefined) {
      // Swap-remove from the unordered list of non-zero words.
      const position = this.#positions[index] ?? -1;
      const last = this.nonzeroWords.pop() ?? index;
      if (last !== index) {
        this.nonzeroWords[position] = last;
        this.#positions[last] = position;
      }
      this.#positions[index] = -1;
    }
  }

  has(slot: number): boolean {
    return ((this.words[slot >>> 5] ?? 0) & (1 << (slot & 31))) !== 0;
  }
}
