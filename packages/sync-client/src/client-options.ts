import type { FetchFunction, RetryOptions } from "@sds/client";
import type { SyncClientHooks } from "./hooks.ts";

/**
 * When and how to retry: the options of `@sds/client`, with its defaults (2 retries, 0.5 s
 * doubling up to 8 s with full jitter) but for `maxRetryAfter`, 10 s here: a `Retry-After` of
 * up to 10 s (a store or settings hiccup) is waited out, a longer one (links that cannot be
 * signed yet: 60 s) is thrown at once as the error, for the caller to decide. Only operations safe to repeat are retried (every GET,
 * matching, entry links of one token, history imports, dry-run reconciliations, reconciliations
 * sent with an idempotency key, ending a session, erasing a profile), on HTTP 408, 429 and 5xx,
 * network failures and attempt timeouts. A reconciliation that records without a key is never
 * retried: a second run of the same lines could record other transitions. Nor are starting a session (a second attempt would begin a second session) and
 * answering one (the session may have moved on): read the session instead.
 */
export type SyncRetryOptions = RetryOptions;

/**
 * How responses are checked against the schemas of this package: `"loose"` parses them (types
 * checked, fields the schema does not name dropped), `"off"` returns the body as received.
 */
export type SyncValidationMode = "loose" | "off";

/** Options of one call; each overrides the client's option of the same name. */
export interface SyncRequestOptions {
  /** Cancels the call: the request or a retry delay. */
  readonly signal?: AbortSignal | undefined;
  /** Per-attempt timeout in ms (`false`: none); a long-poll adds its `wait` to it. */
  readonly timeout?: number | false | undefined;
  /** Overall time limit of the call in ms, retries included (`false`: none). */
  readonly deadline?: number | false | undefined;
  /** Retry options, a retry limit, or `false` for no retries. */
  readonly retry?: SyncRetryOptions | number | false | undefined;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * Options of {@link createSyncClient}. Only `baseUrl` is needed, and it falls back to the
 * `SDS_SYNC_URL` environment variable; the token falls back to `SYNC_API_TOKEN`, the variable
 * sds-sync itself reads.
 */
export interface SyncClientOptions {
  /** sds-sync's base URL, such as `http://127.0.0.1:8787` (no `/v1`). @default process.env.SDS_SYNC_URL */
  readonly baseUrl?: string | undefined;
  /** The bearer token (`SYNC_API_TOKEN`); none when sds-sync runs without one. @default process.env.SYNC_API_TOKEN */
  readonly token?: string | undefined;
  /** The `fetch` to use. @default globalThis.fetch */
  readonly fetch?: FetchFunction | undefined;
  /** Per-attempt timeout in ms, to the response headers and again to the end of the body (`false`: none). @default 30000 */
  readonly timeout?: number | false | undefined;
  /** Overall time limit of each call in ms, retries included (`false`: none). @default false */
  readonly deadline?: number | false | undefined;
  /** Retry options, a retry limit, or `false` for no retries. @default { limit: 2 } */
  readonly retry?: SyncRetryOptions | number | false | undefined;
  /** How to check responses. @default "loose" */
  readonly validation?: SyncValidationMode | undefined;
  /** Extra headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Observers of requests, answers, retries and failures (redacted). */
  readonly hooks?: SyncClientHooks | undefined;
  /** The `User-Agent` header. @default "@sds/sync-client/<version>" outside browsers; not set in browsers */
  readonly userAgent?: string | undefined;
  /**
   * Where `SDS_SYNC_URL` and `SYNC_API_TOKEN` are looked up when `baseUrl` or `token` is absent;
   * an application that injects its environment (a CLI, a test) passes it here.
   * @default process.env, where the runtime has one
   */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}
