import { SdsError, type RequestContext } from "./sds-error.ts";

/**
 * No response arrived: DNS failure, refused or reset connection, TLS failure, or a body cut
 * off mid-way. Retried automatically before this is thrown; `cause` holds the runtime's error.
 */
export class ConnectionError extends SdsError {
  override name = "ConnectionError" as const;
  declare readonly operation: RequestContext["operation"];
  declare readonly method: RequestContext["method"];
  declare readonly path: string;
  declare readonly url: string;
  declare readonly attempts: number;

  constructor(message: string, request: RequestContext, options: { readonly cause?: unknown } = {}) {
    super(message, { request, cause: options.cause });
  }
}

/** Which limit a {@link TimeoutError} hit. */
export type TimeoutPhase = "attempt" | "deadline";

/**
 * A time limit ran out: the per-attempt `timeout` (after the retries it allows) or the overall
 * `deadline` of the call (which also counts time queued and between retries).
 */
export class TimeoutError extends SdsError {
  override name = "TimeoutError" as const;
  declare readonly operation: RequestContext["operation"];
  declare readonly method: RequestContext["method"];
  declare readonly path: string;
  declare readonly url: string;
  declare readonly attempts: number;
  /** `"attempt"` when one attempt took longer than `timeout`; `"deadline"` when the whole call ran past `deadline`. */
  readonly phase: TimeoutPhase;
  /** The limit that ran out, in milliseconds. */
  readonly timeout: number;

  constructor(message: string, details: { readonly request: RequestContext; readonly phase: TimeoutPhase; readonly timeout: number }) {
    super(message, { request: details.request });
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
export class RequestAbortedError extends SdsError {
  override name = "RequestAbortedError" as const;
  declare readonly operation: RequestContext["operation"];
  declare readonly method: RequestContext["method"];
  declare readonly path: string;
  declare readonly url: string;
  declare readonly attempts: number;

  constructor(message: string, request: RequestContext, options: { readonly cause?: unknown } = {}) {
    super(message, { request, cause: options.cause });
  }
}
