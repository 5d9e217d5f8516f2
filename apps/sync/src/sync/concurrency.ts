/**
 * Runs `worker` over `items` with at most `limit` in flight, starting the next item as soon as
 * one finishes (a pool, not batches, so one slow request does not idle the other slots). Each
 * slot of `items` is cleared once taken, so what a worker is done with can be collected while
 * the rest waits: a first cycle over 100,000 surveys would otherwise hold every one to the end.
 * A worker's rejection stops the pool from taking new items; the first one is rethrown once
 * every running worker has finished, so no work outlives the call.
 */
export async function drainWithConcurrency<T>(items: (T | undefined)[], limit: number, worker: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (next < items.length && failure === undefined) {
      const item = items[next];
      items[next] = undefined;
      next += 1;
      if (item === undefined) continue;
      try {
        await worker(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure) throw failure.error;
}
