import { ConnectionError, RateLimitError, ServerError, type RetryEvent } from "@sds/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "./support/manual-clock.ts";
import { startHarness, transportModes, type Harness } from "./support/harness.ts";

const urls = {
  Enabled: true,
  CompleteUrl: "https://panel.example/c",
  TerminateUrl: "https://panel.example/t",
  OverQuotaUrl: "https://panel.example/o",
  SecurityTerminateUrl: "https://panel.example/s",
};

describe.each(transportModes)("retries (%s)", (mode) => {
  let harness: Harness;
  let clock: ManualClock;
  let retries: RetryEvent[];

  beforeEach(async () => {
    clock = new ManualClock({ autoAdvance: true });
    retries = [];
    harness = await startHarness(mode, {
      clock,
      retry: { jitter: false },
      hooks: { onRetry: (event) => retries.push(event) },
    });
  });

  afterEach(async () => {
    await harness.close();
  });

  const attemptsLogged = (): number => harness.api.requestLog().length;

  it("retries a 503 twice with exponential backoff, then succeeds", async () => {
    harness.api.faults.add({ kind: "status", status: 503, count: 2 });
    const { response } = await harness.sds.surveys.list().withResponse();
    expect(response.attempts).toBe(3);
    expect(clock.sleeps).toEqual([500, 1000]);
    expect(retries.map(({ attempt, delayMs, fromRetryAfter }) => ({ attempt, delayMs, fromRetryAfter }))).toEqual([
      { attempt: 1, delayMs: 500, fromRetryAfter: false },
      { attempt: 2, delayMs: 1000, fromRetryAfter: false },
    ]);
    expect(retries[0]?.error).toBeInstanceOf(ServerError);
  });

  it("gives up after the retry limit with the last error", async () => {
    harness.api.faults.add({ kind: "status", status: 500 });
    await expect(harness.sds.surveys.list()).rejects.toMatchObject({ name: "ServerError", status: 500, attempts: 3 });
    expect(attemptsLogged()).toBe(3);
  });

  it("retries a 429 after the Retry-After seconds", async () => {
    harness.api.faults.add({ kind: "status", status: 429, retryAfter: 3, count: 1 });
    await harness.sds.surveys.list();
    expect(clock.sleeps).toEqual([3000]);
    expect(retries[0]?.fromRetryAfter).toBe(true);
  });

  it("retries a 503 at the Retry-After HTTP date", async () => {
    harness.api.faults.add({
      kind: "status",
      status: 503,
      retryAfter: new Date(clock.now() + 12_000).toUTCString(),
      count: 1,
    });
    await harness.sds.surveys.list();
    expect(clock.sleeps).toEqual([12_000]);
  });

  it("does not wait for a Retry-After beyond maxRetryAfter and throws it instead", async () => {
    harness.api.faults.add({ kind: "status", status: 429, retryAfter: 3600, count: 1 });
    const error = await harness.sds.surveys
      .list({ retry: { maxRetryAfter: 60_000 } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfter: 3_600_000, attempts: 1 });
    expect(clock.sleeps).toEqual([]);
  });

  it("retries 408 and a reset connection", async () => {
    harness.api.faults.add({ kind: "status", status: 408, count: 1 });
    harness.api.faults.add({ kind: "connection-reset", count: 1 });
    const { response } = await harness.sds.surveys.list().withResponse();
    expect(response.attempts).toBe(3);
    expect(retries[1]?.error).toBeInstanceOf(ConnectionError);
  });

  it("retries a truncated body", async () => {
    harness.api.faults.add({ kind: "truncated-json", count: 1 });
    const { response } = await harness.sds.surveys.list().withResponse();
    expect(response.attempts).toBe(2);
  });

  it("retries the idempotent updates, which then take effect once", async () => {
    harness.api.faults.add({ kind: "status", status: 502, count: 1, operation: "updateRedirectUrls" });
    const { response } = await harness.sds.account.updateRedirectUrls(harness.supplierId, urls).withResponse();
    expect(response.attempts).toBe(2);
    expect(harness.api.getAccount(harness.supplierId).RedirectUrls).toEqual(urls);
  });

  it.each([
    ["400", { kind: "status", status: 400 }],
    ["401", { kind: "status", status: 401 }],
    ["404", { kind: "status", status: 404 }],
    ["hasError under 200", { kind: "envelope-error" }],
  ] as const)("does not retry %s", async (_label, fault) => {
    harness.api.faults.add({ ...fault, count: 1 });
    await expect(harness.sds.surveys.list()).rejects.toMatchObject({ attempts: 1 });
    expect(attemptsLogged()).toBe(1);
    expect(retries).toEqual([]);
  });

  it("takes the retry limit per call: false, a number or options", async () => {
    harness.api.faults.add({ kind: "status", status: 500 });
    await expect(harness.sds.surveys.list({ retry: false })).rejects.toMatchObject({ attempts: 1 });
    await expect(harness.sds.surveys.list({ retry: 4 })).rejects.toMatchObject({ attempts: 5 });
    await expect(harness.sds.surveys.list({ retry: { limit: 1, initialDelay: 10 } })).rejects.toMatchObject({
      attempts: 2,
    });
    expect(clock.sleeps).toEqual([500, 1000, 2000, 4000, 10]);
  });

  it("takes retry options per client", async () => {
    const sds = harness.client({ clock, retry: { limit: 3, initialDelay: 100, maxDelay: 250, jitter: false } });
    harness.api.faults.add({ kind: "status", status: 503 });
    await expect(sds.surveys.list()).rejects.toMatchObject({ attempts: 4 });
    expect(clock.sleeps).toEqual([100, 200, 250]);
  });

  it("jitters each delay between 0 and the backoff by default", async () => {
    const sds = harness.client({ clock, retry: { limit: 3 } });
    harness.api.faults.add({ kind: "status", status: 503 });
    await expect(sds.surveys.list()).rejects.toBeInstanceOf(ServerError);
    expect(clock.sleeps).toHaveLength(3);
    clock.sleeps.forEach((delay, index) => {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(500 * 2 ** index);
    });
  });

  it("does not retry into a deadline it cannot meet: it throws the real error", async () => {
    // The deadline's own timer waits on the clock, so this clock moves only when told to.
    const manual = new ManualClock();
    const sds = harness.client({ clock: manual, retry: { jitter: false } });
    harness.api.faults.add({ kind: "status", status: 503 });
    const pending = sds.surveys.list({ deadline: 1200 }).catch((caught: unknown) => caught);
    await manual.advance(500);
    const error = await pending;
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ attempts: 2 });
    expect(manual.sleeps).toEqual([1200, 500]);
  });
});
