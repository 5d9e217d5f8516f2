/** Gives a slot back. Calling it more than once has no further effect. */
export type Release = () => void;

interface Waiter {
  readonly grant: (release: Release) => void;
}

/**
 * At most `limit` holders at once; the rest wait in arrival order. One per client, so every
 * call of the client shares it. A waiter whose signal aborts leaves the queue at once.
 * (sds-sync's `TaskPool` is a different tool kept on purpose: it starts tasks, bounding a
 * producer, and keeps their first failure; this only hands out slots.)
 */
export class ConcurrencyLimiter {
  readonly #limit: number;
  readonly #queue: Waiter[] = [];
  #active = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Slots in use. */
  get active(): number {
    return this.#active;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Resolves with a {@link Release} once a slot is free; rejects with `signal.reason` on abort. */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.#active < this.#limit) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
      };
      const onAbort = (): void => {
        const index = this.#queue.indexOf(waiter);
        if (index !== -1) this.#queue.splice(index, 1);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      // The slot passes straight to the next waiter, so `active` stays the same.
      if (next) next.grant(this.#releaser());
      else this.#active--;
    };
  }
}
