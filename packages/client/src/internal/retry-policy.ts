import type { ApiError } from "../errors/api-error.ts";

/** Retry options with every default filled in. */
export interface ResolvedRetryOptions {
  readonly limit: number;
  readonly initialDelay: number;
  readonly maxDelay: number;
  readonly maxRetryAfter: number;
  readonly jitter: boolean;
}

/** The defaults: two retries, 0.5 s doubling up to 8 s with full jitter, `Retry-After` up to a minute. */
export const defaultRetryOptions: ResolvedRetryOptions = {
  limit: 2,
  initialDelay: 500,
  maxDelay: 8000,
  maxRetryAfter: 60_000,
  jitter: true,
};

/** HTTP statuses worth retrying: 408 Request Timeout, 429 Too Many Requests, every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * The exponential backoff before retry number `retryNumber` (1 for the first retry):
 * `initialDelay * 2^(retryNumber - 1)`, capped at `maxDelay`; with full jitter, a uniformly
 * random time between 0 and that.
 */
export function backoffDelay(
  retryNumber: number,
  retry: ResolvedRetryOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(retry.maxDelay, retry.initialDelay * 2 ** (retryNumber - 1));
  return retry.jitter ? Math.round(random() * ceiling) : ceiling;
}

/**
 * Reads a `Retry-After` header as milliseconds to wait: delay-seconds (`"120"`, fractions
 * tolerated) or an HTTP date (`"Wed, 21 Oct 2026 07:28:00 GMT"`, counted from `now`; a date in
 * the past means 0). `undefined` when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // Only an HTTP date (IMF-fixdate or its obsolete forms) names a weekday or a month.
  if (!/[a-z]{3}/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A decision to retry: how long to wait first, and whether the server chose it. */
export interface RetryPlan {
  readonly delayMs: number;
  readonly fromRetryAfter: boolean;
}

/** What {@link planRetry} needs to know about the failed attempt and the call. */
export interface RetryInput {
  /** Attempts made so far, the failed one included. */
  readonly attempts: number;
  readonly retry: ResolvedRetryOptions;
  /** The failed response's error, when a response arrived. */
  readonly apiError: ApiError | undefined;
  readonly now: number;
  /** When the call's deadline runs out (same clock as `now`), if it has one. */
  readonly deadlineAt: number | undefined;
  readonly random?: () => number;
}

/**
 * Decides whether and when to retry a retryable failure. No retry when the limit is used up,
 * when the server's `Retry-After` exceeds `maxRetryAfter`, or when the wait would run past the
 * deadline (failing now with the real error beats failing later with a timeout).
 */
export function planRetry({ attempts, retry, apiError, now, deadlineAt, random }: RetryInput): RetryPlan | undefined {
  if (attempts > retry.limit) return undefined;
  const retryAfter = apiError?.retryAfter;
  let plan: RetryPlan;
  if (retryAfter === undefined) {
    plan = { delayMs: backoffDelay(attempts, retry, random), fromRetryAfter: false };
  } else if (retryAfter > retry.maxRetryAfter) {
    return undefined;
  } else {
    plan = { delayMs: retryAfter, fromRetryAfter: true };
  }
  if (deadlineAt !== undefined && now + plan.delayMs >= deadlineAt) return undefined;
  return plan;
}
