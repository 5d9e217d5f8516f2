import { RequestAbortedError, ServerError, TimeoutError, type RetryEvent } from "@sds/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock, settle } from "./support/manual-clock.ts";
import { startHarness, transportModes, type Harness } from "./support/harness.ts";

describe.each(transportModes)("timeouts and aborts (%s)", (mode) => {
  let harness: Harness;
  let retries: RetryEvent[];

  beforeEach(async () => {
    retries = [];
    harness = await startHarness(mode, {
      retry: { initialDelay: 1, jitter: false },
      hooks: { onRetry: (event) => retries.push(event) },
    });
  });

  afterEach(async () => {
    await harness.close();
  });

  it("retries an attempt that timed out, and the next one succeeds", async () => {
    // The first attempt waits far longer than its timeout; the second has the whole timeout to
    // answer, which a loaded machine needs (100 ms was not enough there).
    harness.api.faults.add({ kind: "latency", ms: 30_000, count: 1 });
    const { response } = await harness.sds.surveys.list({ timeout: 1500 }).withResponse();
    expect(response.attempts).toBe(2);
    expect(retries[0]?.error).toBeInstanceOf(TimeoutError);
  });

  it("throws TimeoutError of the attempt when every attempt is too slow", async () => {
    harness.api.faults.add({ kind: "latency", ms: 3000 });
    const error = await harness.sds.surveys
      .list({ timeout: 50, retry: { limit: 1 } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: "attempt", timeout: 50, attempts: 2 });
    expect((error as TimeoutError).message).toContain("GET /surveys timed out");
  });

  it("ends the call at its deadline, promptly and without retrying", async () => {
    harness.api.faults.add({ kind: "latency", ms: 5000 });
    const started = performance.now();
    const error = await harness.sds.surveys.list({ deadline: 100 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: "deadline", timeout: 100, attempts: 1 });
    expect(performance.now() - started).toBeLessThan(2500);
    expect(retries).toEqual([]);
  });

  it("counts time queued for a slot against the deadline", async () => {
    const sds = harness.client({ maxConcurrency: 1 });
    harness.api.faults.add({ kind: "latency", ms: 400, count: 1 });
    const slow = sds.surveys.list();
    const queued = await sds.account.get({ deadline: 50 }).catch((caught: unknown) => caught);
    expect(queued).toBeInstanceOf(TimeoutError);
    expect(queued).toMatchObject({ phase: "deadline", attempts: 0 });
    await expect(slow).resolves.toMatchObject({ hasError: false });
  });

  it("rejects promptly with RequestAbortedError when the caller aborts mid-request, and does not retry", async () => {
    harness.api.faults.add({ kind: "latency", ms: 5000 });
    const controller = new AbortController();
    const started = performance.now();
    const pending = harness.sds.surveys.list({ signal: controller.signal }).catch((caught: unknown) => caught);
    setTimeout(() => {
      controller.abort(new Error("user navigated away"));
    }, 30);
    const error = await pending;
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).toMatchObject({ attempts: 1 });
    expect((error as RequestAbortedError).cause).toEqual(new Error("user navigated away"));
    expect(performance.now() - started).toBeLessThan(2500);
    expect(retries).toEqual([]);
  });

  it("sends nothing when the signal has already aborted", async () => {
    harness.api.clearRequestLog();
    await expect(harness.sds.surveys.list({ signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "RequestAbortedError",
      attempts: 0,
    });
    expect(harness.api.requestLog()).toEqual([]);
  });

  it("aborts a call waiting for a concurrency slot without disturbing the one holding it", async () => {
    const sds = harness.client({ maxConcurrency: 1 });
    harness.api.faults.add({ kind: "latency", ms: 200, count: 1 });
    const holder = sds.surveys.list();
    const controller = new AbortController();
    const waiter = sds.account.get({ signal: controller.signal }).catch((caught: unknown) => caught);
    controller.abort();
    expect(await waiter).toMatchObject({ name: "RequestAbortedError", attempts: 0 });
    await expect(holder).resolves.toMatchObject({ hasError: false });
    await expect(sds.account.get()).resolves.toMatchObject({ hasError: false });
  });

  it("aborts during the delay before a retry", async () => {
    const clock = new ManualClock();
    const sds = harness.client({ clock, retry: { jitter: false } });
    harness.api.faults.add({ kind: "status", status: 503 });
    const controller = new AbortController();
    const pending = sds.surveys.list({ signal: controller.signal }).catch((caught: unknown) => caught);
    for (let round = 0; round < 50 && clock.pending === 0; round++) await settle();
    expect(clock.sleeps).toEqual([500]);
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).toMatchObject({ attempts: 1 });
    expect(clock.pending).toBe(0);
  });

  it("gives a late failure its real error when the deadline falls during the backoff", async () => {
    const clock = new ManualClock();
    const sds = harness.client({ clock, retry: { jitter: false, initialDelay: 1000 } });
    harness.api.faults.add({ kind: "status", status: 500 });
    const error = await sds.surveys.list({ deadline: 800 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ attempts: 1 });
  });
});
