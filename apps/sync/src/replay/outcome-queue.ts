/** An outcome a replayed policy learns once its time has come. */
export interface DueOutcome {
  readonly surveyId: number;
  readonly complete: boolean;
  /** Epoch milliseconds the outcome was recorded at. */
  readonly at: number;
}

/** Outcomes by time (a binary min-heap): a replay learns each only once the entry being replayed is later. */
export class OutcomeQueue {
  readonly #heap: DueOutcome[] = [];

  add(outcome: DueOutcome): void {
    const heap = this.#heap;
    heap.push(outcome);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if ((heap[parent]?.at ?? 0) <= outcome.at) break;
      heap[index] = heap[parent] as DueOutcome;
      index = parent;
    }
    heap[index] = outcome;
  }

  /** The outcomes recorded at or before `time`, earliest first, taken off the queue. */
  takeUntil(time: number): DueOutcome[] {
    const taken: DueOutcome[] = [];
    while (this.#heap.length > 0 && (this.#heap[0]?.at ?? Number.POSITIVE_INFINITY) <= time) taken.push(this.#pop());
    return taken;
  }

  #pop(): DueOutcome {
    const heap = this.#heap;
    const top = heap[0] as DueOutcome;
    const last = heap.pop() as DueOutcome;
    if (heap.length === 0) return top;
    heap[0] = last;
    const at = (index: number) => heap[index]?.at ?? Number.POSITIVE_INFINITY;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      let smallest = index;
      if (at(left) < at(smallest)) smallest = left;
      if (at(left + 1) < at(smallest)) smallest = left + 1;
      if (smallest === index) return top;
      [heap[index], heap[smallest]] = [heap[smallest] as DueOutcome, heap[index] as DueOutcome];
      index = smallest;
    }
  }
}
