import type { Clock } from "../clock.ts";

/** Why a call was cut short from outside its attempts. */
export type Interruption = "aborted" | "deadline";

/**
 * The signal of one call: it fires when the caller's signal aborts or the call's deadline
 * passes. Every wait of the call (queue, rate limit, attempt, retry delay) listens to it.
 */
export class CallScope {
  /** Fires on the caller's abort or at the deadline. */
  readonly signal: AbortSignal;
  /** When the deadline passes (on the client's clock), if the call has one. */
  readonly deadlineAt: number | undefined;
  readonly #userSignal: AbortSignal | undefined;
  readonly #deadline = new AbortController();
  readonly #timer = new AbortController();

  constructor(clock: Clock, userSignal: AbortSignal | undefined, deadline: number | false) {
    this.#userSignal = userSignal;
    this.signal = userSignal ? AbortSignal.any([userSignal, this.#deadline.signal]) : this.#deadline.signal;
    if (deadline === false) {
      this.deadlineAt = undefined;
    } else {
      this.deadlineAt = clock.now() + deadline;
      clock.sleep(deadline, this.#timer.signal).then(
        () => {
          this.#deadline.abort(new Error(`deadline of ${deadline} ms passed`));
        },
        () => undefined, // the call ended first and cancelled the timer
      );
    }
  }

  /** What cut the call short, if anything did. The caller's abort wins over the deadline. */
  interruption(): Interruption | undefined {
    if (this.#userSignal?.aborted) return "aborted";
    if (this.#deadline.signal.aborted) return "deadline";
    return undefined;
  }

  /** The caller's abort reason, for `cause`. */
  get abortReason(): unknown {
    return this.#userSignal?.reason as unknown;
  }

  /** Stops the deadline timer; call when the call settles. */
  dispose(): void {
    this.#timer.abort();
  }
}
