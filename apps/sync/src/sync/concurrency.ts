/**
 * Runs `worker` over `items` with at most `limit` in flight, starting the next item as soon as
 * one finishes (a pool, not batches, so one slow request does not idle the other slots).
 * A worker's rejection is its own business: wrap what must not stop the others. Stops taking
 * new items once `signal` aborts.
 */
export async function forEachWithConcurrency<T>(
  items: readonly T[],
  limit: number,
  worker: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length && !signal?.aborted) {
      const item = items[next] as T;
      next += 1;
      await worker(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}
