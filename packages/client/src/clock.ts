/**
 * Where the client gets the time and how it waits: retries, `Retry-After`, the deadline and
 * the rate limit all go through it. The default uses `Date.now()` and `setTimeout`; tests
 * inject a manual clock to make retry timing deterministic.
 */
export interface Clock {
  /** Milliseconds since the epoch (also used to read `Retry-After` HTTP dates). */
  now(): number;
  /**
   * Resolves after `ms` milliseconds; rejects with `signal.reason` as soon as `signal` aborts
   * (at once if it already has).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The real clock: `Date.now()` and `setTimeout`. (`@sds/testing` has the same sleep of its own,
 * on purpose: it does not depend on the client it tests.)
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
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
    }),
};
