/**
 * Lets a repeated log line through at most once per `everyMs`, per key: the one rate limit of
 * the service's repeated warnings (the receiver's refused calls, outcomes accepted unsigned). The
 * first line of a key always passes; the clock is injectable so tests advance time instead of
 * sleeping.
 *
 * @example
 * ```ts
 * const throttle = new LogThrottle(60_000);
 * if (throttle.admit("refused")) logger.warn("the receiver refused calls");
 * ```
 */
export class LogThrottle {
  readonly #everyMs: number;
  readonly #now: () => number;
  readonly #lastAt = new Map<string, number>();

  constructor(everyMs: number, now: () => number = Date.now) {
    this.#everyMs = everyMs;
    this.#now = now;
  }

  /** Whether a line about `key` may be logged now; when it may, it counts as logged now. */
  admit(key = ""): boolean {
    const now = this.#now();
    const last = this.#lastAt.get(key);
    if (last !== undefined && now - last < this.#everyMs) return false;
    this.#lastAt.set(key, now);
    return true;
  }

  /** Forgets `key`: its next line passes at once (the condition it warned of ended, and came back). */
  reset(key = ""): void {
    this.#lastAt.delete(key);
  }
}
