import type { FetchFunction } from "@sds/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "./support/manual-clock.ts";
import { startHarness, transportModes, type Harness } from "./support/harness.ts";

/** A fetch that forwards to `target` and tracks how many requests are in flight at once. */
function countingFetch(target: FetchFunction): { fetch: FetchFunction; peak: () => number; sent: () => number } {
  let inFlight = 0;
  let peak = 0;
  let sent = 0;
  return {
    fetch: async (input, init) => {
      sent++;
      peak = Math.max(peak, ++inFlight);
      try {
        return await target(input, init);
      } finally {
        inFlight--;
      }
    },
    peak: () => peak,
    sent: () => sent,
  };
}

describe.each(transportModes)("concurrency and rate limits (%s)", (mode) => {
  let harness: Harness;
  let target: FetchFunction;

  beforeEach(async () => {
    harness = await startHarness(mode);
    target = mode === "in-process" ? harness.api.fetch : (input, init) => fetch(input, init);
  });

  afterEach(async () => {
    await harness.close();
  });

  it("keeps at most maxConcurrency requests in flight across all calls of a client", async () => {
    const counter = countingFetch(target);
    const sds = harness.client({ fetch: counter.fetch, maxConcurrency: 2 });
    harness.api.faults.add({ kind: "latency", ms: 30 });
    const [survey] = harness.api.listSurveys(harness.supplierId);
    const calls = [
      sds.surveys.list(),
      sds.account.get(),
      sds.collections.languages(),
      sds.surveys.qualifications(survey?.SurveyId ?? 0),
      sds.collections.industries(),
      sds.surveys.list(),
    ];
    const results = await Promise.all(calls);
    expect(results.every((result) => result.hasError === false)).toBe(true);
    expect(counter.sent()).toBe(6);
    expect(counter.peak()).toBe(2);
  });

  it("runs calls in parallel up to the default limit", async () => {
    const counter = countingFetch(target);
    const sds = harness.client({ fetch: counter.fetch });
    harness.api.faults.add({ kind: "latency", ms: 30 });
    await Promise.all(Array.from({ length: 12 }, () => sds.account.get()));
    expect(counter.peak()).toBe(8);
  });

  it("spaces requests by the rate limit, shared by every call of the client", async () => {
    const clock = new ManualClock();
    const sentAt: number[] = [];
    const start = clock.now();
    const sds = harness.client({
      clock,
      rateLimit: { requestsPerSecond: 10 },
      fetch: (input, init) => {
        sentAt.push(clock.now() - start);
        return target(input, init);
      },
    });
    const calls = Promise.all([sds.surveys.list(), sds.account.get(), sds.collections.languages(), sds.surveys.list()]);
    for (let step = 0; step < 4; step++) await clock.advance(100);
    await calls;
    expect(sentAt).toEqual([0, 100, 200, 300]);
  });

  it("lets a burst through, then holds the rate", async () => {
    const clock = new ManualClock();
    const sentAt: number[] = [];
    const start = clock.now();
    const sds = harness.client({
      clock,
      rateLimit: { requestsPerSecond: 2, burst: 3 },
      fetch: (input, init) => {
        sentAt.push(clock.now() - start);
        return target(input, init);
      },
    });
    const calls = Promise.all(Array.from({ length: 5 }, () => sds.account.get()));
    for (let step = 0; step < 4; step++) await clock.advance(250);
    await calls;
    expect(sentAt).toEqual([0, 0, 0, 500, 1000]);
  });

  it("gives each client its own limits", async () => {
    const clock = new ManualClock();
    const sentAt: number[] = [];
    const options = {
      clock,
      rateLimit: { requestsPerSecond: 1 },
      fetch: (input: Request, init?: RequestInit) => {
        sentAt.push(clock.now());
        return target(input, init);
      },
    };
    await Promise.all([harness.client(options).account.get(), harness.client(options).account.get()]);
    expect(sentAt).toEqual([clock.now(), clock.now()]);
  });
});
