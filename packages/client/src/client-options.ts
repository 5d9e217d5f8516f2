import type { OperationId } from "@sds/schemas";
import type { Clock } from "./clock.ts";
import type { ClientHooks, Logger } from "./hooks.ts";

/**
 * How responses are checked against the schemas of `@sds/schemas`:
 * - `"loose"`: types checked, unknown fields kept (a new upstream field breaks nothing);
 * - `"strict"`: unknown fields are reported as issues too (for contract tests);
 * - `"off"`: the body is returned as parsed, unchecked (the envelope's `hasError` still counts).
 */
export type ValidationMode = "loose" | "strict" | "off";

/** A WHATWG `fetch`. The client always calls it with a `Request`. */
export type FetchFunction = (input: Request, init?: RequestInit) => Promise<Response>;

/**
 * When and how to retry. Every operation of the service is a GET or an idempotent PUT (an
 * update replaces the settings), so all are retried on HTTP 408, 429 and 5xx and on network
 * failures and attempt timeouts. Delays grow exponentially with full jitter; a server's
 * `Retry-After` (seconds or HTTP date) replaces the backoff.
 */
export interface RetryOptions {
  /** How many retries after the first attempt. @default 2 */
  readonly limit?: number | undefined;
  /** The backoff before the first retry, doubled for each further one, in ms. @default 500 */
  readonly initialDelay?: number | undefined;
  /** The longest backoff between two attempts, in ms. @default 8000 */
  readonly maxDelay?: number | undefined;
  /**
   * The longest `Retry-After` the client waits, in ms. When the server asks for longer, the
   * error is thrown at once (a `RateLimitError` with its `retryAfter`) instead of retried.
   * @default 60000
   */
  readonly maxRetryAfter?: number | undefined;
  /** Full jitter: wait a random time between 0 and the backoff, so clients do not retry in step. @default true */
  readonly jitter?: boolean | undefined;
}

/** A client-side limit on the request rate, as a token bucket shared by every call of one client. */
export interface RateLimitOptions {
  /** Sustained requests per second (fractions allowed: `100 / 60` is 100 a minute). */
  readonly requestsPerSecond: number;
  /** How many requests may go at once after a quiet spell. @default 1 */
  readonly burst?: number | undefined;
}

/** Options of one call; each overrides the client's option of the same name. */
export interface RequestOptions {
  /** Cancels the call: the request, a retry delay or a wait in the queue. */
  readonly signal?: AbortSignal | undefined;
  /** Per-attempt timeout in ms (`false`: none). */
  readonly timeout?: number | false | undefined;
  /** Overall time limit of the call in ms, queueing and retries included (`false`: none). */
  readonly deadline?: number | false | undefined;
  /** Retry options, a retry limit, or `false` for no retries. */
  readonly retry?: RetryOptions | number | false | undefined;
  /** How to check the response. */
  readonly validation?: ValidationMode | undefined;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * Options of {@link createClient}. Only `baseUrl` and `apiKey` are needed, and both fall back to
 * the `SDS_BASE_URL` and `SDS_API_KEY` environment variables (of `env`, else of the runtime).
 */
export interface ClientOptions {
  /** The base URL, ending in `/api/v1` (production or sandbox). @default process.env.SDS_BASE_URL */
  readonly baseUrl?: string | undefined;
  /** The API key, sent in the `EQ-PARTNER-ACCESS-KEY` header. @default process.env.SDS_API_KEY */
  readonly apiKey?: string | undefined;
  /** The `fetch` to use, such as a fake service's handler in tests. @default globalThis.fetch */
  readonly fetch?: FetchFunction | undefined;
  /** Per-attempt timeout in ms, covering the response headers and again the body (`false`: none). @default 30000 */
  readonly timeout?: number | false | undefined;
  /** Overall time limit of each call in ms, queueing and retries included (`false`: none). @default false */
  readonly deadline?: number | false | undefined;
  /** Retry options, a retry limit, or `false` for no retries. @default { limit: 2 } */
  readonly retry?: RetryOptions | number | false | undefined;
  /** How to check responses. @default "loose" */
  readonly validation?: ValidationMode | undefined;
  /** The most requests of this client in flight at once (`Infinity`: no limit). @default 8 */
  readonly maxConcurrency?: number | undefined;
  /** A client-side rate limit; none when absent. */
  readonly rateLimit?: RateLimitOptions | undefined;
  /**
   * Paths to use instead of those of the `operations` table, keyed by operation id, with the
   * same `{placeholders}`. For the undocumented operations, whose paths are guesses.
   *
   * @example
   * ```ts
   * createClient({ paths: { getSurveyStats: "/stats/{surveyId}" } });
   * ```
   */
  readonly paths?: Readonly<Partial<Record<OperationId, string>>> | undefined;
  /** Observers of requests, responses, retries and errors (redacted). */
  readonly hooks?: ClientHooks | undefined;
  /** A pino-style logger; the same events as `hooks`, as log lines. */
  readonly logger?: Logger | undefined;
  /** Extra headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** The `User-Agent` header. @default "@sds/client/<version>" outside browsers; not set in browsers */
  readonly userAgent?: string | undefined;
  /** The time source for retries, deadlines and the rate limit. @default systemClock */
  readonly clock?: Clock | undefined;
  /**
   * Where `SDS_BASE_URL` and `SDS_API_KEY` are looked up when `baseUrl` or `apiKey` is absent;
   * an application that injects its environment (a CLI, a test) passes it here so the client
   * reads nothing else.
   * @default process.env, where the runtime has one
   */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}
