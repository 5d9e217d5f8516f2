/**
 * Time as the loop's background work sees it: what time it is, and a wait that a stop ends at
 * once. Production runs on {@link systemClock}; a test gives the runtime a clock it advances
 * itself, so the work that happens "every ten minutes" happens when the test moves time, without
 * a test waiting ten minutes or a production path knowing it is tested.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves once `ms` have passed, or at once when `signal` aborts (never rejects). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The wall clock, with timers that never keep the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      signal.addEventListener("abort", done, { once: true });
    }),
};
