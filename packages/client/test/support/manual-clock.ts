import type { Clock } from "@sds/client";

interface Timer {
  readonly at: number;
  readonly resolve: () => void;
}

/**
 * A clock that only moves when told to, so retry and rate-limit timing is exact. Every
 * requested sleep is recorded in `sleeps`. With `autoAdvance`, a sleep moves the clock by its
 * length and resolves at once: enough for one call's retries, but wrong for a deadline (whose
 * timer would fire at once); otherwise `advance()` moves it.
 */
export class ManualClock implements Clock {
  readonly sleeps: number[] = [];
  #now: number;
  readonly #autoAdvance: boolean;
  #timers: Timer[] = [];

  constructor(options: { readonly start?: number; readonly autoAdvance?: boolean } = {}) {
    this.#now = options.start ?? Date.UTC(2026, 10, 22, 10, 0, 0);
    this.#autoAdvance = options.autoAdvance ?? false;
  }

  now(): number {
    return this.#now;
  }

  /** Records the wait (deadline timers included) and waits for `advance()`, or not at all with `autoAdvance`. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.#autoAdvance) {
      this.#now += ms;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const timer: Timer = {
        at: this.#now + ms,
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.#timers = this.#timers.filter((candidate) => candidate !== timer);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#timers.push(timer);
    });
  }

  /** Timers waiting. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Moves the clock forward, firing due timers in order and letting their work run. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await settle();
      const due = this.#timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((timer) => timer !== due);
      this.#now = Math.max(this.#now, due.at);
      due.resolve();
    }
    this.#now = target;
    await settle();
  }
}

/** Lets pending promise chains and in-process fetches run to their next real wait. */
export async function settle(): Promise<void> {
  for (let round = 0; round < 5; round++) await new Promise((resolve) => setTimeout(resolve, 0));
}
