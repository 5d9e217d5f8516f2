/** A wait that ends after `ms` or as soon as it is woken, whichever comes first. */
export interface Nap {
  /** Resolves when the time is up or the nap is woken. */
  readonly done: Promise<void>;
  /** Ends the nap now; harmless after it ended. */
  wake(): void;
}

/**
 * Starts a {@link Nap} of `ms` milliseconds.
 *
 * @example
 * ```ts
 * const nap = startNap(5000);
 * stopButton.onclick = () => nap.wake();
 * await nap.done;
 * ```
 */
export function startNap(ms: number): Nap {
  let wake: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return {
    done,
    wake: () => {
      wake();
    },
  };
}
