/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal` aborts — even
 * when the work behind `promise` ignores the signal (a custom `fetch`, say), so an abort is
 * always prompt. The losing promise's rejection is handled so it cannot go unhandled. Without a
 * signal, `promise` itself.
 */
export function raceWithSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  promise.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise
      .finally(() => {
        signal.removeEventListener("abort", onAbort);
      })
      .then(resolve, reject);
  });
}
