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
 * Waits until `performance.now()` reaches `due`. Timers fire up to a millisecond early (libuv
 * counts whole milliseconds), so it waits again for what is left: never returns before `due`.
 */
export async function sleepUntil(due: number, signal?: AbortSignal): Promise<void> {
  for (let remaining = due - performance.now(); remaining > 0; remaining = due - performance.now()) await sleep(remaining, signal);
}
