// The same few lines as @sds/client's `systemClock.sleep`, kept apart on purpose: @sds/testing
// stands alone (it does not depend on @sds/client), so the fake never shares code with the client it tests.

/** Waits `ms` milliseconds; rejects with the signal's reason if it aborts first, as fetch does. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Waits until `performance.now()` reaches `due`, and never returns before it. Timers count whole
 * milliseconds from the event loop's cached time, so they may fire up to a millisecond early: the
 * first wait is rounded up (which lands closest to `due`), and any remainder is waited again.
 */
export async function sleepUntil(due: number, signal?: AbortSignal): Promise<void> {
  const first = due - performance.now();
  if (first > 0) await sleep(Math.ceil(first), signal);
  for (let remaining = due - performance.now(); remaining > 0; remaining = due - performance.now())
    await sleep(remaining, signal);
}
