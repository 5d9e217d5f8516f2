import { describe, expect, it } from "vitest";
import { ConcurrencyLimiter } from "./concurrency-limiter.ts";

describe("ConcurrencyLimiter", () => {
  it("lets `limit` holders in and queues the rest in arrival order", async () => {
    const limiter = new ConcurrencyLimiter(2);
    const order: number[] = [];
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    const third = limiter.acquire().then((release) => {
      order.push(3);
      return release;
    });
    const fourth = limiter.acquire().then((release) => {
      order.push(4);
      return release;
    });
    expect(limiter.active).toBe(2);
    expect(limiter.waiting).toBe(2);
    first();
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual([3, 4]);
    expect(limiter.active).toBe(0);
  });

  it("ignores a second release of the same slot", async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire();
    release();
    release();
    expect(limiter.active).toBe(0);
    const again = await limiter.acquire();
    expect(limiter.active).toBe(1);
    again();
  });

  it("drops an aborted waiter from the queue and rejects it with the reason", async () => {
    const limiter = new ConcurrencyLimiter(1);
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    expect(limiter.waiting).toBe(0);
    held();
    expect(limiter.active).toBe(0);
  });

  it("rejects at once when the signal has already aborted", async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(limiter.acquire(AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
    expect(limiter.active).toBe(0);
  });
});
