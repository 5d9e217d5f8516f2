import { describe, expect, it } from "vitest";
import { createApiError } from "../errors/create-api-error.ts";
import { backoffDelay, defaultRetryOptions, isRetryableStatus, parseRetryAfter, planRetry } from "./retry-policy.ts";

const noJitter = { ...defaultRetryOptions, jitter: false };
const now = Date.UTC(2026, 10, 22, 10, 0, 0);

function apiErrorWithRetryAfter(retryAfter: number | undefined) {
  return createApiError({
    request: { operation: "listSurveys", method: "GET", path: "/surveys", url: "http://x/api/v1/surveys", attempts: 1 },
    status: 429,
    errorCode: undefined,
    messages: [],
    requestId: undefined,
    retryAfter,
    headers: new Headers(),
    body: undefined,
  });
}

describe("backoffDelay", () => {
  it("doubles from the initial delay and stops at the cap", () => {
    const delays = [1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(retry, noJitter));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it("draws full jitter uniformly between 0 and the exponential delay", () => {
    expect(backoffDelay(3, defaultRetryOptions, () => 0)).toBe(0);
    expect(backoffDelay(3, defaultRetryOptions, () => 0.5)).toBe(1000);
    expect(backoffDelay(3, defaultRetryOptions, () => 0.999_999)).toBe(2000);
  });

  it("keeps jittered delays within [0, cap] over many draws", () => {
    for (let index = 0; index < 1000; index++) {
      const delay = backoffDelay(10, defaultRetryOptions);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(8000);
    }
  });
});

describe("parseRetryAfter", () => {
  it("reads delay-seconds as milliseconds", () => {
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("1.5", now)).toBe(1500);
  });

  it("reads an HTTP date relative to now", () => {
    expect(parseRetryAfter(new Date(now + 7000).toUTCString(), now)).toBe(7000);
  });

  it("treats an HTTP date in the past as no wait", () => {
    expect(parseRetryAfter(new Date(now - 60_000).toUTCString(), now)).toBe(0);
  });

  it("ignores missing and unreadable values", () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
    expect(parseRetryAfter("2026-11-22", now)).toBeUndefined();
  });
});

describe("isRetryableStatus", () => {
  it("retries 408, 429 and every 5xx, nothing else", () => {
    expect([408, 429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 400, 401, 403, 404, 409, 413].some(isRetryableStatus)).toBe(false);
  });
});

describe("planRetry", () => {
  it("uses the backoff while retries are left, then stops", () => {
    expect(planRetry({ attempts: 1, retry: noJitter, apiError: undefined, now, deadlineAt: undefined })).toEqual({
      delayMs: 500,
      fromRetryAfter: false,
    });
    expect(planRetry({ attempts: 2, retry: noJitter, apiError: undefined, now, deadlineAt: undefined })).toEqual({
      delayMs: 1000,
      fromRetryAfter: false,
    });
    expect(
      planRetry({ attempts: 3, retry: noJitter, apiError: undefined, now, deadlineAt: undefined }),
    ).toBeUndefined();
  });

  it("honours Retry-After instead of the backoff, without jitter", () => {
    const plan = planRetry({
      attempts: 1,
      retry: defaultRetryOptions,
      apiError: apiErrorWithRetryAfter(4000),
      now,
      deadlineAt: undefined,
    });
    expect(plan).toEqual({ delayMs: 4000, fromRetryAfter: true });
  });

  it("gives up when Retry-After exceeds maxRetryAfter", () => {
    const retry = { ...noJitter, maxRetryAfter: 10_000 };
    expect(
      planRetry({ attempts: 1, retry, apiError: apiErrorWithRetryAfter(10_000), now, deadlineAt: undefined }),
    ).toBeDefined();
    expect(
      planRetry({ attempts: 1, retry, apiError: apiErrorWithRetryAfter(10_001), now, deadlineAt: undefined }),
    ).toBeUndefined();
  });

  it("gives up when the wait would run past the deadline", () => {
    expect(
      planRetry({ attempts: 1, retry: noJitter, apiError: undefined, now, deadlineAt: now + 500 }),
    ).toBeUndefined();
    expect(planRetry({ attempts: 1, retry: noJitter, apiError: undefined, now, deadlineAt: now + 501 })).toBeDefined();
  });

  it("never retries with a limit of 0", () => {
    expect(
      planRetry({ attempts: 1, retry: { ...noJitter, limit: 0 }, apiError: undefined, now, deadlineAt: undefined }),
    ).toBeUndefined();
  });
});
