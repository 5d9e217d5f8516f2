import { SyncClientError, type SyncRequestContext } from "./sync-client-error.ts";

/** One validation problem: where (`path`), what (`message`) and its kind (`code`, zod's issue code). */
export interface SyncValidationIssue {
  /** Where, from the root of the body (`["outcomes", 4, "token"]`); empty for the body itself. */
  readonly path: readonly PropertyKey[];
  readonly message: string;
  /** zod's issue code (`invalid_type`, `custom`, …), or `invalid_json`. */
  readonly code: string;
}

/**
 * A request was refused before it was sent: its body breaks the route's schema (a token with a
 * control character, 1,001 lines in one batch). Nothing went over the network.
 */
export class SyncRequestValidationError extends SyncClientError {
  override name = "SyncRequestValidationError" as const;
  /** What is wrong with the request, each with its path inside the body. */
  readonly issues: readonly SyncValidationIssue[];

  constructor(
    message: string,
    details: { readonly request: SyncRequestContext; readonly issues: readonly SyncValidationIssue[] },
  ) {
    super(message, { request: details.request });
    this.issues = details.issues;
  }

  protected override details(): Record<string, unknown> {
    return { issues: this.issues };
  }
}

/**
 * The request succeeded but its body does not match the route's schema (or was not JSON): not
 * an HTTP failure, `status` is the success status it came with. Most likely the URL is not
 * sds-sync, or it is of another version.
 */
export class SyncResponseValidationError extends SyncClientError {
  override name = "SyncResponseValidationError" as const;
  /** The HTTP status the body came with. */
  readonly status: number;
  /** What did not match, each with its path inside the body. */
  readonly issues: readonly SyncValidationIssue[];

  constructor(
    message: string,
    details: {
      readonly request: SyncRequestContext;
      readonly status: number;
      readonly issues: readonly SyncValidationIssue[];
    },
  ) {
    super(message, { request: details.request });
    this.status = details.status;
    this.issues = details.issues;
  }

  protected override details(): Record<string, unknown> {
    return { status: this.status, issues: this.issues };
  }
}

/**
 * No response arrived: refused or reset connection, unknown host, a body cut off. Retried
 * first when the operation is safe to repeat; `cause` holds the runtime's error.
 */
export class SyncConnectionError extends SyncClientError {
  override name = "SyncConnectionError" as const;
}

/** A time limit ran out: one attempt's `timeout` (`phase: "attempt"`) or the call's `deadline`. */
export class SyncTimeoutError extends SyncClientError {
  override name = "SyncTimeoutError" as const;
  /** Which limit ran out. */
  readonly phase: "attempt" | "deadline";
  /** That limit, in milliseconds. */
  readonly timeout: number;

  constructor(
    message: string,
    details: { readonly request: SyncRequestContext; readonly phase: "attempt" | "deadline"; readonly timeout: number },
  ) {
    super(message, { request: details.request });
    this.phase = details.phase;
    this.timeout = details.timeout;
  }

  protected override details(): Record<string, unknown> {
    return { phase: this.phase, timeout: this.timeout };
  }
}

/** The caller's `AbortSignal` fired. Never retried; `cause` holds the signal's `reason`. */
export class SyncAbortedError extends SyncClientError {
  override name = "SyncAbortedError" as const;
}
