import { describe, expect, it } from "vitest";
import { ManualClock } from "../../test/support/manual-clock.ts";
import { RateLimiter } from "./rate-limiter.ts";

describe("RateLimiter", () => {
  it("spaces requests evenly with a burst of 1", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ requestsPerSecond: 4, burst: 1 }, clock);
    const start = clock.now();
    const sentAt: number[] = [];
    const all = Promise.all([0, 1, 2, 3].map(() => limiter.acquire().then(() => sentAt.push(clock.now() - start))));
    await clock.advance(1000);
    await all;
    expect(sentAt).toEqual([0, 250, 500, 750]);
  });

  it("lets a burst through at once, then holds the sustained rate", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ requestsPerSecond: 2, burst: 3 }, clock);
    const start = clock.now();
    const sentAt: number[] = [];
    const all = Promise.all([0, 1, 2, 3, 4].map(() => limiter.acquire().then(() => sentAt.push(clock.now() - start))));
    await clock.advance(2000);
    await all;
    expect(sentAt).toEqual([0, 0, 0, 500, 1000]);
  });

  it("refills after a quiet spell, but no more than the burst", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ requestsPerSecond: 1, burst: 2 }, clock);
    await limiter.acquire();
    await clock.advance(10_000);
    const start = clock.now();
    const sentAt: number[] = [];
    const all = Promise.all([0, 1, 2].map(() => limiter.acquire().then(() => sentAt.push(clock.now() - start))));
    await clock.advance(2000);
    await all;
    expect(sentAt).toEqual([0, 0, 1000]);
  });

  it("rejects a waiting caller when its signal aborts", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ requestsPerSecond: 1, burst: 1 }, clock);
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
  });
});
