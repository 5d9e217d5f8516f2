import type { Clock } from "../src/loop/runtime/clock.ts";

/**
 * A {@link Clock} that moves only when a test says so: sleepers wake when {@link advance} passes
 * their time, so work due "every ten minutes" runs when the test moves ten minutes, at once.
 */
export class ManualClock implements Clock {
  #now: number;
  readonly #sleepers = new Set<{ readonly at: number; readonly wake: () => void }>();

  constructor(start: number = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) {
        resolve();
        return;
      }
      const sleeper = {
        at: this.#now + ms,
        wake: () => {
          this.#sleepers.delete(sleeper);
          signal.removeEventListener("abort", sleeper.wake);
          resolve();
        },
      };
      this.#sleepers.add(sleeper);
      signal.addEventListener("abort", sleeper.wake, { once: true });
    });
  }

  /** How many waits are pending: a test waits for the tasks to be asleep before it moves time. */
  get sleeping(): number {
    return this.#sleepers.size;
  }

  /** Moves time forward by `ms`, waking every sleeper whose time has come. */
  advance(ms: number): void {
    this.#now += ms;
    for (const sleeper of [...this.#sleepers]) if (sleeper.at <= this.#now) sleeper.wake();
  }
}
