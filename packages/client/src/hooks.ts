import type { OperationId } from "@sds/schemas";
import type { SdsError } from "./errors/sds-error.ts";

/** Fields every event of the logging hooks carries. */
export interface RequestEventBase {
  readonly operation: OperationId;
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

/** An attempt got a response (any status). */
export interface ResponseEvent extends RequestEventBase {
  readonly status: number;
  /** Time since the call started (queueing and earlier attempts included), in milliseconds. */
  readonly durationMs: number;
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
  readonly error: SdsError;
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
  readonly onRequest?: ((event: RequestEvent) => void) | undefined;
  readonly onResponse?: ((event: ResponseEvent) => void) | undefined;
  readonly onRetry?: ((event: RetryEvent) => void) | undefined;
  readonly onError?: ((event: RequestErrorEvent) => void) | undefined;
}

/** A log method in the style of pino: structured fields first, then the message. */
export type LogMethod = (fields: Record<string, unknown>, message: string) => void;

/**
 * A structured logger such as pino (or any object with these methods). Requests and responses
 * go to `debug`, retries to `warn`, failures to `error`; secrets are redacted.
 */
export interface Logger {
  readonly debug?: LogMethod | undefined;
  readonly warn?: LogMethod | undefined;
  readonly error?: LogMethod | undefined;
}
