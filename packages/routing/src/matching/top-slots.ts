/**
 * Keeps the best `limit` slots offered, by score descending then survey id ascending, in a
 * binary heap whose root is the worst kept: a match over thousands of eligible surveys costs
 * `n log limit` comparisons instead of a full sort.
 */
export class TopSlots {
  readonly #limit: number;
  readonly #scores: Float64Array;
  readonly #surveyIds: Float64Array;
  readonly #heap: number[] = [];

  constructor(limit: number, scores: Float64Array, surveyIds: Float64Array) {
    this.#limit = limit;
    this.#scores = scores;
    this.#surveyIds = surveyIds;
  }

  /** Whether slot `left` ranks below slot `right`. */
  #worse(left: number, right: number): boolean {
    const leftScore = this.#scores[left] ?? 0;
    const rightScore = this.#scores[right] ?? 0;
    if (leftScore !== rightScore) return leftScore < rightScore;
    return (this.#surveyIds[left] ?? 0) > (this.#surveyIds[right] ?? 0);
  }

  /**
   * The score a slot must at least reach to be kept: the worst kept score once `limit` slots
   * are kept, `-Infinity` before.
   */
  threshold(): number {
    const worst = this.#heap[0];
    return this.#heap.length < this.#limit || worst === undefined
      ? Number.NEGATIVE_INFINITY
      : (this.#scores[worst] ?? 0);
  }

  offer(slot: number): void {
    const heap = this.#heap;
    if (heap.length < this.#limit) {
      heap.push(slot);
      this.#siftUp(heap.length - 1);
    } else if (this.#worse(heap[0] ?? slot, slot)) {
      heap[0] = slot;
      this.#siftDown(0);
    }
  }

  /** The kept slots, best first. */
  sorted(): number[] {
    return [...this.#heap].sort((left, right) => (this.#worse(left, right) ? 1 : this.#worse(right, left) ? -1 : 0));
  }

  #siftUp(start: number): void {
    const heap = this.#heap;
    let index = start;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const current = heap[index] ?? 0;
      const above = heap[parent] ?? 0;
      if (!this.#worse(current, above)) break;
      heap[index] = above;
      heap[parent] = current;
      index = parent;
    }
  }

  #siftDown(start: number): void {
    const heap = this.#heap;
    let index = start;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let worst = index;
      if (left < heap.length && this.#worse(heap[left] ?? 0, heap[worst] ?? 0)) worst = left;
      if (right < heap.length && this.#worse(heap[right] ?? 0, heap[worst] ?? 0)) worst = right;
      if (worst === index) return;
      const current = heap[index] ?? 0;
      heap[index] = heap[worst] ?? 0;
      heap[worst] = current;
      index = worst;
    }
  }
}
