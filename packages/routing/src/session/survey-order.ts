/** One survey in a session's order: what offering it is worth, and the chance the session goes on after it fails. */
export interface OrderItem {
  readonly surveyId: number;
  /** Expected cents of offering it (conversion × Cpi × the chance the respondent stays its Loi). */
  readonly value: number;
  /** The chance the respondent is there for the next offer after this one: it failed, and they stayed through the screen-out. */
  readonly goOn: number;
  /** Expected minutes it takes. */
  readonly minutes: number;
}

/** The value of the best order of `slots` attempts over the items, and that order. */
export interface SessionOrder {
  readonly cents: number;
  readonly minutes: number;
  readonly surveyIds: number[];
}

/**
 * The best order of at most `slots` attempts among `items`. Offering `a` then `b` is worth
 * `v_a + g_a v_b`; swapping them helps exactly when `v_b / (1 − g_b) > v_a / (1 − g_a)`, so any
 * chosen set is best offered by that index, descending. Which set: a dynamic programme over the
 * items in index order (`O(items × slots)`), so a short cheap survey that completes does not
 * foreclose a better one the session would have reached.
 */
export function bestOrder(items: readonly OrderItem[], slots: number): SessionOrder {
  return bestOrderOfSorted(items.filter((item) => item.value > 0).sort(byOrderIndex), slots);
}

/** {@link bestOrder} of items already sorted by {@link byOrderIndex}, each worth something. */
export function bestOrderOfSorted(sorted: readonly OrderItem[], slots: number): SessionOrder {
  const count = sorted.length;
  if (count === 0 || slots <= 0) return { cents: 0, minutes: 0, surveyIds: [] };
  const width = slots + 1;
  // best[i * width + j]: the best value from items i… with j slots.
  const best = new Float64Array((count + 1) * width);
  for (let i = count - 1; i >= 0; i--) {
    const item = sorted[i] as OrderItem;
    for (let j = 1; j <= slots; j++) {
      const skip = best[(i + 1) * width + j] ?? 0;
      const take = item.value + item.goOn * (best[(i + 1) * width + j - 1] ?? 0);
      best[i * width + j] = take > skip ? take : skip;
    }
  }
  const surveyIds: number[] = [];
  let minutes = 0;
  let reach = 1;
  for (let i = 0, j = slots; i < count && j > 0; i++) {
    if ((best[i * width + j] ?? 0) === (best[(i + 1) * width + j] ?? 0)) continue;
    const item = sorted[i] as OrderItem;
    surveyIds.push(item.surveyId);
    minutes += reach * item.minutes;
    reach *= item.goOn;
    j--;
  }
  return { cents: best[slots] ?? 0, minutes, surveyIds };
}

/** The index an order sorts by: `v / (1 − g)`. */
export function orderIndex(item: OrderItem): number {
  return item.goOn >= 1 ? Number.POSITIVE_INFINITY : item.value / (1 - item.goOn);
}

/** Compares two items by {@link orderIndex} descending, then survey id. */
export function byOrderIndex(left: OrderItem, right: OrderItem): number {
  return orderIndex(right) - orderIndex(left) || left.surveyId - right.surveyId;
}

/** Merges two lists sorted by {@link byOrderIndex} into one. */
export function mergeSorted(left: readonly OrderItem[], right: readonly OrderItem[]): OrderItem[] {
  if (right.length === 0) return left as OrderItem[];
  const merged: OrderItem[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    if (byOrderIndex(left[i] as OrderItem, right[j] as OrderItem) <= 0) merged.push(left[i++] as OrderItem);
    else merged.push(right[j++] as OrderItem);
  }
  while (i < left.length) merged.push(left[i++] as OrderItem);
  while (j < right.length) merged.push(right[j++] as OrderItem);
  return merged;
}

/** The best `limit` items offered, kept sorted by {@link byOrderIndex}. */
export class TopOrderItems<T extends { readonly item: OrderItem }> {
  readonly #limit: number;
  readonly entries: T[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  offer(entry: T): void {
    const { entries } = this;
    if (entries.length >= this.#limit && byOrderIndex(entry.item, (entries.at(-1) as T).item) >= 0) return;
    let low = 0;
    let high = entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (byOrderIndex((entries[middle] as T).item, entry.item) <= 0) low = middle + 1;
      else high = middle;
    }
    entries.splice(low, 0, entry);
    if (entries.length > this.#limit) entries.pop();
  }
}
