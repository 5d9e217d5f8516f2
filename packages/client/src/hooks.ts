import type { OperationId } from "@sds/schemas";
import type { SdsError } from "./errors/sds-error.ts";

/** Fields every event of the logging hooks carries. */
export interface RequestEventBase {
  /** The operation id, such as `"listSurveys"`. */
  readonly operation: OperationId;
  /** The HTTP method. */
  readonly method: "GET" | "PUT";
  /** The full URL (it never holds the API key: the key travels in a header). */
  readonly url: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attempt: number;
}

/** An attempt is about to be sent. */
export interface RequestEvent extends RequestEventBase {
  /** The request headers, with the API key and other credentials replaced by `[REDACTED]`. */
  readonly headers: Readonly<Record<string, string>>;
}

/** An attempt got a response (any status): its headers arrived (for an error status, its body too). */
export interface ResponseEvent extends RequestEventBase {
  /** The HTTP status of this attempt's response. */
  readonly status: number;
  /** Time since the call started (queueing and earlier attempts included), in milliseconds. */
  readonly durationMs: number;
  /** The request id from the response headers, when the server sent one. */
  readonly requestId: string | undefined;
}

/** An attempt failed in a way worth retrying, and the client will retry after `delayMs`. */
export interface RetryEvent extends RequestEventBase {
  /** Why the attempt failed. */
  readonly error: SdsError;
  /** How long the client waits before the next attempt, in milliseconds. */
  readonly delayMs: number;
  /** Whether `delayMs` came from the server's `Retry-After` rather than the backoff. */
  readonly fromRetryAfter: boolean;
}

/** A call failed for good: this error is what the caller receives. */
export interface RequestErrorEvent extends RequestEventBase {
  /** The error the call rejects with. */
  readonly error: SdsError;
  /** Time since the call started, in milliseconds. */
  readonly durationMs: number;
}

/**
 * Observers of every call, for logs, metrics and traces. They receive redacted data only;
 * an exception thrown by a hook is swallowed, so a broken logger never fails a request.
 *
 * @example
 * ```ts
 * createClient({ hooks: { onRetry: (event) => metrics.increment("sds.retry", { operation: event.operation }) } });
 * ```
 */
export interface ClientHooks {
  /** Before each attempt is sent. */
  readonly onRequest?: ((event: RequestEvent) => void) | undefined;
  /** When an attempt's response headers arrive, whatever its status (for an error status, once its body is read). */
  readonly onResponse?: ((event: ResponseEvent) => void) | undefined;
  /** When a failed attempt will be retried, before the delay. */
  readonly onRetry?: ((event: RetryEvent) => void) | undefined;
  /** When a call that was sent (or queued to be) fails for good. */
  readonly onError?: ((event: RequestErrorEvent) => void) | undefined;
}

/** A log method in the style of pino: structured fields first, then the message. */
export type LogMethod = (fields: Record<string, unknown>, message: string) => void;

/**
 * A structured logger such as pino (or any object with these methods). Requests and responses
 * go to `debug`, retries to `warn`, failures to `error`; secrets are redacted.
 */
export interface Logger {
  /** Receives requests and responses. */
  readonly debug?: LogMethod | undefined;
  /** Receives retries. */
  readonly warn?: LogMethod | undefined;
  /** Receives calls that failed for good. */
  readonly error?: LogMethod | undefined;
}
