import type { Clock } from "../clock.ts";

/**
 * A token bucket, written as the equivalent generic cell rate algorithm: each request reserves
 * the next free moment, `1000 / requestsPerSecond` ms after the previous one, and up to `burst`
 * requests may run ahead of that schedule after a quiet spell. Reservations are made in call
 * order, so waiters are served first come, first served.
 */
export class RateLimiter {
  readonly #interval: number;
  readonly #burstAllowance: number;
  readonly #clock: Clock;
  /** When the next request would go if requests were perfectly evenly spaced. */
  #nextAt = Number.NEGATIVE_INFINITY;

  constructor(options: { readonly requestsPerSecond: number; readonly burst: number }, clock: Clock) {
    this.#interval = 1000 / options.requestsPerSecond;
    this.#burstAllowance = (options.burst - 1) * this.#interval;
    this.#clock = clock;
  }

  /**
   * Resolves when the caller may send; rejects with `signal.reason` on abort. An aborted
   * reservation is not handed back: the rate stays under the limit, at worst a little lower.
   */
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const now = this.#clock.now();
    const scheduled = Math.max(this.#nextAt, now);
    this.#nextAt = scheduled + this.#interval;
    const wait = scheduled - this.#burstAllowance - now;
    if (wait > 0) await this.#clock.sleep(wait, signal);
  }
}
