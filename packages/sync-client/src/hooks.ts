import type { SyncClientError, SyncOperationId } from "./errors/sync-client-error.ts";

/** Fields every event of the hooks carries. */
export interface SyncRequestEventBase {
  /** The operation, as `/openapi.json` names it (`"issueEntryLink"`). */
  readonly operation: SyncOperationId;
  readonly method: "GET" | "POST" | "DELETE";
  /** The full URL (it never holds the token: the token travels in a header). */
  readonly url: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attempt: number;
}

/** An attempt is about to be sent. */
export interface SyncRequestEvent extends SyncRequestEventBase {
  /** The request headers, the token replaced by `[REDACTED]`. */
  readonly headers: Readonly<Record<string, string>>;
}

/** An attempt got an answer (any status). */
export interface SyncResponseEvent extends SyncRequestEventBase {
  readonly status: number;
  /** Time since the call started (earlier attempts and delays included), in milliseconds. */
  readonly durationMs: number;
}

/** An attempt failed in a way worth retrying, and the client retries it. */
export interface SyncRetryEvent extends SyncRequestEventBase {
  /** Why the attempt failed. */
  readonly error: SyncClientError;
}

/** A call failed for good: this error is what the caller receives. */
export interface SyncRequestErrorEvent extends SyncRequestEventBase {
  readonly error: SyncClientError;
  /** Time since the call started, in milliseconds. */
  readonly durationMs: number;
}

/**
 * Observers of every call, for logs, metrics and a `--debug` trace. They receive redacted data
 * only; an exception thrown by a hook is swallowed, so a broken logger never fails a request.
 *
 * @example
 * ```ts
 * createSyncClient({ hooks: { onResponse: (event) => console.error(`← ${event.status} ${event.method} ${event.url}`) } });
 * ```
 */
export interface SyncClientHooks {
  /** Before each attempt is sent. */
  readonly onRequest?: ((event: SyncRequestEvent) => void) | undefined;
  /** When an attempt's answer arrives, whatever its status. */
  readonly onResponse?: ((event: SyncResponseEvent) => void) | undefined;
  /** When a failed attempt will be retried. */
  readonly onRetry?: ((event: SyncRetryEvent) => void) | undefined;
  /** When a call that was sent fails for good. */
  readonly onError?: ((event: SyncRequestErrorEvent) => void) | undefined;
}
