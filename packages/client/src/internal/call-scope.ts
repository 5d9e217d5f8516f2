import type { Clock } from "../clock.ts";

/** Why a call was cut short from outside its attempts. */
export type Interruption = "aborted" | "deadline";

/** Aborts the deadline timer when the call ends; a fixed reason spares a DOMException per call. */
const callEnded = new Error("the call ended before its deadline");

/**
 * The signal of one call: it fires when the caller's signal aborts or the call's deadline
 * passes. Every wait of the call (queue, rate limit, attempt, retry delay) listens to it.
 * A call with neither has no signal at all, which spares ky and the runtime the bookkeeping
 * of combined signals on every request.
 */
export class CallScope {
  /** Fires on the caller's abort or at the deadline; `undefined` when the call has neither. */
  readonly signal: AbortSignal | undefined;
  /** When the deadline passes (on the client's clock), if the call has one. */
  readonly deadlineAt: number | undefined;
  readonly #userSignal: AbortSignal | undefined;
  readonly #deadline: AbortController | undefined;
  readonly #timer: AbortController | undefined;

  constructor(clock: Clock, userSignal: AbortSignal | undefined, deadline: number | false) {
    this.#userSignal = userSignal;
    if (deadline === false) {
      this.signal = userSignal;
      this.deadlineAt = undefined;
      return;
    }
    const deadlineController = new AbortController();
    const timer = new AbortController();
    this.#deadline = deadlineController;
    this.#timer = timer;
    this.signal = userSignal ? AbortSignal.any([userSignal, deadlineController.signal]) : deadlineController.signal;
    this.deadlineAt = clock.now() + deadline;
    clock.sleep(deadline, timer.signal).then(
      () => {
        deadlineController.abort(new Error(`deadline of ${deadline} ms passed`));
      },
      () => undefined, // the call ended first and cancelled the timer
    );
  }

  /** What cut the call short, if anything did. The caller's abort wins over the deadline. */
  interruption(): Interruption | undefined {
    if (this.#userSignal?.aborted) return "aborted";
    if (this.#deadline?.signal.aborted) return "deadline";
    return undefined;
  }

  /** The caller's abort reason, for `cause`. */
  get abortReason(): unknown {
    return this.#userSignal?.reason as unknown;
  }

  /** Stops the deadline timer; call when the call settles. */
  dispose(): void {
    this.#timer?.abort(callEnded);
  }
}
