import { RequestError } from "./request-error.ts";
import type { RequestContext } from "./sds-error.ts";

/**
 * No response arrived: DNS failure, refused or reset connection, TLS failure, or a body cut
 * off mid-way. Retried automatically before this is thrown; `cause` holds the runtime's error.
 */
export class ConnectionError extends RequestError {
  override name = "ConnectionError" as const;
}

/** Which limit a {@link TimeoutError} hit. */
export type TimeoutPhase = "attempt" | "deadline";

/**
 * A time limit ran out: the per-attempt `timeout` (after the retries it allows) or the overall
 * `deadline` of the call (which also counts time queued and between retries).
 */
export class TimeoutError extends RequestError {
  override name = "TimeoutError" as const;
  /** `"attempt"` when one attempt took longer than `timeout`; `"deadline"` when the whole call ran past `deadline`. */
  readonly phase: TimeoutPhase;
  /** The limit that ran out, in milliseconds. */
  readonly timeout: number;

  constructor(
    message: string,
    details: { readonly request: RequestContext; readonly phase: TimeoutPhase; readonly timeout: number },
  ) {
    super(message, details.request);
    this.phase = details.phase;
    this.timeout = details.timeout;
  }

  protected override details(): Record<string, unknown> {
    return { phase: this.phase, timeout: this.timeout };
  }
}

/**
 * The caller's `AbortSignal` fired. Never retried; `cause` holds the signal's `reason`.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const pending = sds.surveys.list({ signal: controller.signal });
 * controller.abort();
 * await pending; // rejects with RequestAbortedError
 * ```
 */
export class RequestAbortedError extends RequestError {
  override name = "RequestAbortedError" as const;
}
